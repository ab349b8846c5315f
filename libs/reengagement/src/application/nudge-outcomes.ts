import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type DomainEvent, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';
import { MESSAGE_FAILED, MESSAGE_SENT } from '@engage/messaging';
import { consumeIdempotentBatch, Database, EventSubscriptions } from '@engage/platform';
import type { NudgeRow } from '../domain/nudge';
import { NUDGE_BY_ID, WINDOW_CLOSED } from '../infrastructure/reengagement.sql';
import { failNudge, markSent } from './nudge-sender';

export const OUTCOME_CONSUMER = 'reengagement.message-outcomes';

// A nudge's message that waited in the paced queue left or failed (messaging's message.sent and
// message.failed of origin `reengagement`, origin_id the nudge): the `queued` nudge becomes `sent`
// (with its activity) or `failed` / `expired` (the conversation's window had closed). Idempotent without a processed_events row: each
// transition applies only to a `queued` nudge, so a redelivered event (or the sender having seen
// the outcome first) changes nothing.
@Injectable()
export class NudgeOutcomes implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: OUTCOME_CONSUMER,
      sources: [MESSAGE_SENT.source],
      handle: (event) => this.apply([event]),
      handleBatch: (events) => this.apply(events),
    });
  }

  private async apply(events: DomainEvent[]): Promise<void> {
    const outcomes = events.filter((event) => outcomeOf(event) !== null);
    if (outcomes.length === 0) return;
    await consumeIdempotentBatch(this.db, outcomes, async (tx, batch) => {
      for (const event of batch) {
        const outcome = outcomeOf(event)!;
        const [nudge] = await tx.query<NudgeRow>(NUDGE_BY_ID, [outcome.nudgeId]);
        if (nudge?.status !== 'queued') continue;
        if (outcome.sent)
          await markSent(
            tx,
            { organizationId: event.organizationId, userId: null, role: 'SYSTEM', requestId: event.id },
            nudge.id,
            outcome.messageId,
            nudge.reviewed_by,
          );
        else {
          const [window] = await tx.query<{ closed: boolean }>(WINDOW_CLOSED, [nudge.conversation_id]);
          await failNudge(tx, nudge, window?.closed === true, outcome.reason);
        }
      }
    });
  }
}

function outcomeOf(event: DomainEvent): { nudgeId: string; messageId: string | null; sent: boolean; reason: string } | null {
  if (event.type !== MESSAGE_SENT.name && event.type !== MESSAGE_FAILED.name) return null;
  const message = isPayloadObject(event.payload) ? event.payload.message : undefined;
  if (!isPayloadObject(message) || message.origin !== 'reengagement') return null;
  const nudgeId = uuidOrNull(message.origin_id);
  if (!nudgeId) return null;
  const reason = typeof message.error === 'string' ? message.error : 'the message failed';
  return { nudgeId, messageId: uuidOrNull(message.id), sent: event.type === MESSAGE_SENT.name, reason };
}
