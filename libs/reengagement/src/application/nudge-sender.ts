import { randomUUID } from 'node:crypto';
import { DomainError, type Clock, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import type { PacedSender } from '@engage/messaging';
import { type NudgeRow, type NudgeStatus } from '../domain/nudge';
import { CLAIM_SEND, COUNT_UNANSWERED, MARK_SENT, SEND_FAILED, SET_MESSAGE } from '../infrastructure/reengagement.sql';
import { AI_REENGAGEMENT_SENT } from './reengagement-events';
import { toNudgeView } from './nudge-view';

export type SendResult = { sent: true; nudge: NudgeRow } | { sent: false; nudge: NudgeRow | null; reason: string };

// Sends a nudge through messaging's paced queue as an automated message (the window rule is checked
// there, when it is queued and again when it leaves), written by re-engagement: origin
// `reengagement`, origin_id the nudge. The nudge is moved to `queued` first, so two approvals (or an
// approval and the scheduler) send it once. The message goes at once when the account's pacing
// allows (the nudge is then `sent`); held by the pacing, the nudge stays `queued` and NudgeOutcomes
// moves it on when the message leaves or fails. A refused send moves it to `expired` (window
// closed) or `failed`. Its message is withdrawn if the customer writes while it waits.
export class NudgeSender {
  constructor(
    private readonly db: Database,
    private readonly outbound: Pick<PacedSender, 'send'>,
    private readonly clock: Clock,
  ) {}

  async send(ctx: RequestContext, nudgeId: string, text: string, from: NudgeStatus[], reviewer: string | null): Promise<SendResult> {
    const now = this.clock.now();
    const [claimed] = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(CLAIM_SEND, [nudgeId, text, reviewer, now, from]));
    if (!claimed) return { sent: false, nudge: null, reason: 'not_sendable' };
    // Sent as the system, not as the reviewer: the window rule for automated messages applies.
    const system: RequestContext = { organizationId: ctx.organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    let outcome;
    try {
      const author = { origin: 'reengagement' as const, originId: claimed.id };
      outcome = await this.outbound.send(
        system,
        { conversationId: claimed.conversation_id },
        { message: text, mediaUrls: [], author, metadata: { withdraw_on_reply: true } },
      );
    } catch (error) {
      const closed = error instanceof DomainError && error.code === 'channel.window_closed';
      const failed = await this.db.inTenant(ctx, (tx) => failNudge(tx, claimed, closed, (error as Error).message));
      return { sent: false, nudge: failed ?? claimed, reason: (error as Error).message.slice(0, 500) };
    }
    const messageId = outcome.messageIds[0] ?? null;
    if (outcome.status === 'FAILED') {
      const failed = await this.db.inTenant(ctx, (tx) => failNudge(tx, claimed, false, outcome.failure ?? 'failed'));
      return { sent: false, nudge: failed ?? claimed, reason: (outcome.failure ?? 'failed').slice(0, 500) };
    }
    const nudge = await this.db.inTenant(ctx, async (tx) => {
      if (outcome.status === 'QUEUED') return (await tx.query<NudgeRow>(SET_MESSAGE, [claimed.id, messageId]))[0];
      return (await markSent(tx, ctx, claimed.id, messageId, reviewer)) ?? (await tx.query<NudgeRow>(SET_MESSAGE, [claimed.id, messageId]))[0];
    });
    return { sent: true, nudge };
  }
}

// The nudge's message left: `sent`, counted as unanswered, AI_REENGAGEMENT_SENT on the timeline.
// Null when the nudge was no longer queued (the other observer of the outcome got there first).
export async function markSent(tx: Tx, ctx: RequestContext, nudgeId: string, messageId: string | null, actor: string | null): Promise<NudgeRow | null> {
  const [row] = await tx.query<NudgeRow>(MARK_SENT, [nudgeId, new Date(), messageId]);
  if (!row) return null;
  await tx.execute(COUNT_UNANSWERED, [row.conversation_id]);
  await tx.emit([
    AI_REENGAGEMENT_SENT.create({ organizationId: ctx.organizationId, aggregateId: row.id, payload: { nudge: toNudgeView(row), actor_id: actor } }),
  ]);
  return row;
}

// The message was refused or failed: `expired` when the window had closed, else `failed`.
export async function failNudge(tx: Tx, nudge: NudgeRow, closed: boolean, reason: string): Promise<NudgeRow | null> {
  const expired = closed || new Date(nudge.window_closes_at).getTime() <= Date.now();
  const [row] = await tx.query<NudgeRow>(SEND_FAILED, [nudge.id, expired ? 'expired' : 'failed', reason.slice(0, 500)]);
  return row ?? null;
}
