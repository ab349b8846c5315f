import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { FINISH_SEND, type MessageRow } from '../infrastructure/messaging.sql';
import { MESSAGE_FAILED, MESSAGE_SENT, messageEvent } from '../application/messaging-events';
import type { ProviderResult } from './provider-result';
import { toMessageView, type MessageView } from '../application/views';
import { FINISH_AND_TAKE } from './queue.sql';

export interface Attempt {
  result: ProviderResult | null;
  error: string | null;
}

// Each PENDING row of a send becomes SENT (provider id, message.sent) or FAILED (the provider's
// words, message.failed), whatever the channel.
export async function finishSend(tx: Tx, ctx: RequestContext, messageIds: string[], attempts: Attempt[]): Promise<MessageView[]> {
  const messages: MessageView[] = [];
  for (const [index, attempt] of attempts.entries()) {
    const metadata = attempt.result
      ? { provider_response: { status: attempt.result.status, message: attempt.result.message } }
      : { provider_error: attempt.error };
    const [row] = await tx.query<MessageRow>(
      FINISH_SEND,
      [messageIds[index], attempt.result ? 'SENT' : 'FAILED', attempt.error, attempt.result?.externalId ?? null, JSON.stringify(metadata)],
      { prepare: true },
    );
    // Gone or no longer PENDING: the sweeper already failed it as interrupted; its event is out.
    if (!row) continue;
    const view = toMessageView(row);
    messages.push(view);
    await tx.emit([messageEvent(attempt.result ? MESSAGE_SENT : MESSAGE_FAILED, ctx, view)]);
  }
  return messages;
}

// A queued message as the queue takes it: with its conversation's last customer message then.
export type TakenMessage = MessageRow & { customer_wrote_at: Date | null };

// One provider call of the paced queue ended: its messages and their outcome, and the messages of
// the account's next call to take now (none when the run stops).
export interface CallRecord {
  ids: string[];
  attempt: Attempt;
  take: string[];
  at: Date;
}

// The outcomes of provider calls recorded (each message.sent or message.failed once, one write for
// all the events) and, in the same statement, the next calls' messages taken (QUEUED to PENDING).
// Answers each record's taken rows in the order asked; none when another process took them.
// Receivers of one call share the provider's id: the first keeps it, the others note it (as
// finishSend does, one row after another).
export async function finishAndTake(tx: Tx, ctx: RequestContext, records: CallRecord[]): Promise<TakenMessage[][]> {
  const finishing = records.flatMap(({ ids, attempt }) => {
    const id = attempt.result?.externalId ?? null;
    return ids.map((messageId, index) => {
      const repeated = id !== null && index > 0;
      const metadata = attempt.result
        ? { provider_response: { status: attempt.result.status, message: attempt.result.message }, ...(repeated ? { duplicate_external_id: id } : {}) }
        : { provider_error: attempt.error };
      return {
        messageId,
        status: attempt.result ? 'SENT' : 'FAILED',
        error: attempt.error,
        externalId: repeated ? null : id,
        metadata: JSON.stringify(metadata),
      };
    });
  });
  const taking = records.flatMap(({ take, at }) => take.map((id) => ({ id, at })));
  const rows = await tx.query<TakenMessage & { taken: boolean }>(
    FINISH_AND_TAKE,
    [
      finishing.map((f) => f.messageId),
      finishing.map((f) => f.status),
      finishing.map((f) => f.error),
      finishing.map((f) => f.externalId),
      finishing.map((f) => f.metadata),
      taking.map((t) => t.id),
      taking.map((t) => t.at),
    ],
    { prepare: true },
  );
  // Gone or no longer PENDING: the sweeper already failed it as interrupted; its event is out.
  const finished = new Map(rows.filter((r) => !r.taken).map((r) => [r.id, r]));
  const events = finishing.flatMap(({ messageId }) => {
    const row = finished.get(messageId);
    return row ? [messageEvent(row.status === 'SENT' ? MESSAGE_SENT : MESSAGE_FAILED, ctx, toMessageView(row))] : [];
  });
  await tx.emit(events);
  const taken = rows.filter((r) => r.taken).map(({ taken: _taken, ...row }) => row);
  return records.map((record) => inOrder(record.take, taken));
}

// Rows in the order of the ids asked for (an UPDATE returns them in no particular order).
export const inOrder = <R extends { id: string }>(ids: string[], rows: R[]): R[] => {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
};
