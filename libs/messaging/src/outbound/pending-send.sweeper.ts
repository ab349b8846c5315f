import { randomUUID } from 'node:crypto';
import type { RequestContext } from '@engage/shared-kernel';
import { type Database, defineJob, type JobHandler } from '@engage/platform';
import { FAIL_STALE_PENDING, type MessageRow, SYSTEM_STALE_PENDING } from '../infrastructure/messaging.sql';
import { MESSAGE_FAILED, messageEvent } from '../application/messaging-events';
import { toMessageView } from '../application/views';

export const INTERRUPTED = 'interrupted';
// A queued message whose provider call was in flight when its worker died: never resent by itself.
export const OUTCOME_UNKNOWN = 'outcome_unknown';

export interface SweeperOptions {
  // A send older than this still PENDING was interrupted (longer than any send can take).
  staleAfterMs: number;
  now?: () => Date;
}

// A send is stored PENDING before the provider is called and finished after. A process that dies in
// between leaves the row PENDING: whether the provider got it is unknown, so it is failed with reason
// `interrupted` (`outcome_unknown` for a message of the paced queue; message.failed) and shows as such in the inbox instead of staying "sending" forever.
// Every minute (messagingSchedules).
export class PendingSendSweeper implements JobHandler {
  constructor(
    private readonly db: Database,
    private readonly options: SweeperOptions,
  ) {}

  async handle(): Promise<void> {
    await this.sweep();
  }

  // Returns how many messages it failed.
  async sweep(limit = 100): Promise<number> {
    const now = this.options.now?.() ?? new Date();
    const cutoff = new Date(now.getTime() - this.options.staleAfterMs);
    const stale = await this.db.systemQuery<{ id: string; organization_id: string; queued: boolean }>(SYSTEM_STALE_PENDING, [cutoff, limit]);
    let failed = 0;
    for (const { id, organization_id, queued } of stale) {
      const reason = queued ? OUTCOME_UNKNOWN : INTERRUPTED;
      const ctx: RequestContext = { organizationId: organization_id, userId: null, role: 'SYSTEM', requestId: randomUUID() };
      failed += await this.db.inTenant(ctx, async (tx) => {
        // The send may have finished meanwhile: the update then matches nothing.
        const [row] = await tx.query<MessageRow>(FAIL_STALE_PENDING, [id, reason]);
        if (!row) return 0;
        await tx.emit([messageEvent(MESSAGE_FAILED, ctx, toMessageView(row), { reason })]);
        return 1;
      });
    }
    return failed;
  }
}

export const pendingSendSweepJob = defineJob({ name: 'messaging.pending-send-sweep', handler: PendingSendSweeper });
