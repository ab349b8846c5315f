import { type Database, sqlStateOf } from '@engage/platform';
import { type DomainEvent, groupBy } from '@engage/shared-kernel';
import { timerChangeOf } from '../domain/timers';
import { ARM_TIMER, END_TIMER } from '../infrastructure/automation.sql';

// Keeps each conversation's timers from the message events the rule engine consumes: a customer's
// message arms `conversation.unanswered` and ends `conversation.customer_silent`, a message the
// business sent the reverse (domain/timers.ts). The timer pass fires the episodes that are due.
export class TimerArming {
  constructor(private readonly db: Database) {}

  async observe(event: DomainEvent): Promise<void> {
    await this.observeAll([event]);
  }

  // A batch of events: each organization's changes in one transaction, in the events' order.
  async observeAll(events: readonly DomainEvent[]): Promise<void> {
    const changes = events.flatMap((event) => {
      const change = timerChangeOf(event);
      return change ? [{ organizationId: event.organizationId, requestId: event.id, change }] : [];
    });
    for (const [organizationId, list] of groupBy(changes, (item) => item.organizationId)) {
      const ctx = { organizationId, userId: null, role: 'SYSTEM' as const, requestId: list[0].requestId };
      try {
        await this.db.inTenant(ctx, async (tx) => {
          for (const { change } of list) {
            await tx.execute(END_TIMER, [change.conversationId, change.end, change.at], { prepare: true });
            await tx.execute(ARM_TIMER, [change.conversationId, change.arm, change.at], { prepare: true });
          }
        });
      } catch (error) {
        // The organization may not write (its subscription ended): its timers stay as they are.
        if (sqlStateOf(error) !== '25006') throw error;
      }
    }
  }
}
