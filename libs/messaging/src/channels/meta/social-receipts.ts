import type { DomainEvent, RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import type { SocialPayload } from './meta-webhook';
import { canMoveMessage, type MessageStatus } from '../../domain/statuses';
import type { InboundEventRow } from '../../inbound/inbound.sql';
import type { MessageRow } from '../../infrastructure/messaging.sql';
import { CHANNEL_CONTACTS_BATCH, OUTBOUND_BEFORE_WATERMARKS, OUTBOUND_BY_EXTERNAL_IDS_BATCH, SET_MESSAGE_STATUSES } from './social-batch.sql';
import { MESSAGE_STATUS_EVENTS, messageEvent } from '../../application/messaging-events';
import { toMessageView } from '../../application/views';

type Receipt = Extract<SocialPayload, { type: 'social_receipt' }>;
export interface ClaimedReceipt {
  event: InboundEventRow;
  payload: Receipt;
}
// Each receipt's outcome: done (error null), done with its reason, or worth another try.
export type ReceiptOutcome = { id: string; error: string | null; retry: boolean };
const PREPARED = { prepare: true };

// The receipts of a batch, in order, with the outcome of one at a time (SocialInbound.receipt): the
// customers, the messages named (by Meta id, or every one sent before a watermark) read and locked
// with one statement each, the moves worked out in order (a message delivered then read in the same
// batch ends READ, with both events), and one update of the messages that moved.
export async function applyReceipts(tx: Tx, ctx: RequestContext, receipts: ClaimedReceipt[]): Promise<{ outcomes: ReceiptOutcome[]; events: DomainEvent[] }> {
  const outcomes: ReceiptOutcome[] = [];
  const events: DomainEvent[] = [];
  if (receipts.length === 0) return { outcomes, events };
  const key = (channel: string, id: string) => `${channel} ${id}`;
  const customers = await tx.query<{ channel_account_id: string; external_user_id: string; contact_id: string }>(
    CHANNEL_CONTACTS_BATCH,
    [receipts.map((r) => r.event.channel_account_id), receipts.map((r) => r.payload.user)],
    PREPARED,
  );
  const contactOf = new Map(customers.map((c) => [key(c.channel_account_id, c.external_user_id), c.contact_id]));
  const known = receipts.map((r) => contactOf.get(key(r.event.channel_account_id, r.payload.user)));
  const named = receipts.flatMap((r, i) => (known[i] ? r.payload.mids.map((mid) => ({ channel: r.event.channel_account_id, mid })) : []));
  const byMid = new Map<string, MessageRow>();
  if (named.length > 0) {
    const rows = await tx.query<MessageRow>(OUTBOUND_BY_EXTERNAL_IDS_BATCH, [named.map((n) => n.channel), named.map((n) => n.mid)], PREPARED);
    for (const row of rows) byMid.set(key(row.channel_account_id, row.external_id!), row);
  }
  const marks = receipts.flatMap((r, i) => (known[i] && r.payload.mids.length === 0 ? [{ r, i, contactId: known[i]! }] : []));
  const byWatermark = new Map<number, MessageRow[]>();
  if (marks.length > 0) {
    const rows = await tx.query<MessageRow & { n: number }>(
      OUTBOUND_BEFORE_WATERMARKS,
      [marks.map((m) => m.r.event.channel_account_id), marks.map((m) => m.contactId), marks.map((m) => m.r.payload.watermark), marks.map((m) => m.i)],
      PREPARED,
    );
    for (const { n, ...row } of rows) byWatermark.set(n, [...(byWatermark.get(n) ?? []), row]);
  }
  const status = new Map<string, MessageStatus>();
  const moves: Array<{ message: MessageRow; from: MessageStatus; to: MessageStatus; kind: Receipt['status'] }> = [];
  for (const [i, r] of receipts.entries()) {
    const id = r.event.id;
    if (!known[i]) {
      outcomes.push({ id, error: `no customer ${r.payload.user} on this channel`, retry: false });
      continue;
    }
    const messages =
      r.payload.mids.length > 0
        ? r.payload.mids.flatMap((mid) => byMid.get(key(r.event.channel_account_id, mid)) ?? []).sort(byCreation)
        : (byWatermark.get(i) ?? []);
    // A receipt can overtake the send's commit of the message ids it names.
    if (messages.length === 0 && r.payload.mids.length > 0) {
      outcomes.push({ id, error: `no message with provider ids ${r.payload.mids.join(', ').slice(0, 200)} (yet)`, retry: true });
      continue;
    }
    const to = r.payload.status.toUpperCase() as MessageStatus;
    let moved = 0;
    for (const message of messages) {
      const from = status.get(message.id) ?? (message.status as MessageStatus);
      if (!canMoveMessage(from, to)) continue;
      status.set(message.id, to);
      moves.push({ message, from, to, kind: r.payload.status });
      moved++;
    }
    outcomes.push({ id, error: moved === 0 ? `nothing moved to ${to}` : null, retry: false });
  }
  if (moves.length === 0) return { outcomes, events };
  const ids = [...status.keys()];
  const updated = await tx.query<MessageRow>(SET_MESSAGE_STATUSES, [ids, ids.map((id) => status.get(id))], PREPARED);
  const after = new Map(updated.map((row) => [row.id, row]));
  for (const m of moves) {
    const view = toMessageView({ ...after.get(m.message.id)!, status: m.to });
    events.push(messageEvent(MESSAGE_STATUS_EVENTS[m.kind], ctx, view, { from_status: m.from }));
  }
  return { outcomes, events };
}

const byCreation = (a: MessageRow, b: MessageRow) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
