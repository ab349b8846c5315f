import type { RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { type CallRecord, finishAndTake, type TakenMessage } from './finish-send';

interface Waiting {
  ctx: RequestContext;
  record: CallRecord;
  resolve: (taken: TakenMessage[]) => void;
  reject: (error: unknown) => void;
}

// The paced queue's records of provider calls, written together per organization: a record that
// comes while a write of its organization is under way joins the next one, so the calls of many
// accounts that end at about the same time share one transaction (one statement for their outcomes
// and next messages, one for their events). Each caller still waits for its own commit before its
// account's next call. A write that fails is tried again record by record, so one bad record fails
// only its own caller.
export class QueuedOutcomes {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly writing = new Set<string>();

  constructor(private readonly db: Database) {}

  write(ctx: RequestContext, record: CallRecord): Promise<TakenMessage[]> {
    return new Promise((resolve, reject) => {
      const organizationId = ctx.organizationId;
      const list = this.waiting.get(organizationId) ?? [];
      list.push({ ctx, record, resolve, reject });
      this.waiting.set(organizationId, list);
      // The records of calls that end in the same turn of the event loop go together from the start.
      if (!this.writing.has(organizationId)) {
        this.writing.add(organizationId);
        setImmediate(() => void this.drain(organizationId));
      }
    });
  }

  private async drain(organizationId: string): Promise<void> {
    try {
      for (let next = this.waiting.get(organizationId); next?.length; next = this.waiting.get(organizationId)) {
        this.waiting.delete(organizationId);
        await this.commit(next);
      }
    } finally {
      this.writing.delete(organizationId);
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    try {
      const taken = await this.db.inTenant(batch[0].ctx, (tx) =>
        finishAndTake(
          tx,
          batch[0].ctx,
          batch.map((w) => w.record),
        ),
      );
      batch.forEach((w, i) => w.resolve(taken[i]));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const w of batch) await this.commit([w]);
    }
  }
}
