import { type Database, sqlStateOf } from '@engage/platform';
import type { DomainEvent } from '@engage/shared-kernel';
import { timerChangeOf } from '../domain/timers';
import { ARM_TIMER, END_TIMER } from '../infrastructure/automation.sql';

// Keeps each conversation's timers from the message events the rule engine consumes: a customer's
// message arms `conversation.unanswered` and ends `conversation.customer_silent`, a message the
// business sent the reverse (domain/timers.ts). The timer pass fires the episodes that are due.
export class TimerArming {
  constructor(private readonly db: Database) {}

  async observe(event: DomainEvent): Promise<void> {
    const change = timerChangeOf(event);
    if (!change) return;
    const ctx = { organizationId: event.organizationId, userId: null, role: 'SYSTEM' as const, requestId: event.id };
    try {
      await this.db.inTenant(ctx, async (tx) => {
        await tx.execute(END_TIMER, [change.conversationId, change.end, change.at]);
        await tx.execute(ARM_TIMER, [change.conversationId, change.arm, change.at]);
      });
    } catch (error) {
      // The organization may not write (its subscription ended): its timers stay as they are.
      if (sqlStateOf(error) === '25006') return;
      throw error;
    }
  }
}
