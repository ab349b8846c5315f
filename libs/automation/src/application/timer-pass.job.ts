import { type Database, sqlStateOf, type JobHandler } from '@engage/platform';
import type { Clock } from '@engage/shared-kernel';
import { CLAIM_TIMER, DUE_TIMERS, DUE_WAITS, FINISH_INTERRUPTED } from '../infrastructure/automation.sql';
import type { DueTimer, RuleEngine } from './rule-engine';

// The pass runs every 30 s (automationSchedules): a timer fires, and a waiting run goes on, 0-30 s
// after its time, plus the runner's poll.
export const TIMER_PASS_EVERY_MS = 30_000;
const BATCH = 200;
// A run still running this long after its claim lost its process: its actions take at most a
// minute or so (a webhook's attempts are bounded to 60 s).
export const RUN_INTERRUPTED_AFTER_MS = 15 * 60_000;

// Fires the timer rules due on open episodes, resumes the waiting runs whose time has come and
// finishes interrupted runs, on an injectable clock. A firing is claimed on its episode (automation_timers.fired_rule_ids) and a
// resumption on its run (waiting → running) before anything runs, so two passes, in one process or
// in two, never do the same one twice.
export class TimerPass implements JobHandler {
  constructor(
    private readonly db: Database,
    private readonly engine: RuleEngine,
    private readonly clock: Clock,
  ) {}

  async handle(): Promise<void> {
    await this.finishInterrupted();
    await this.fireDue();
    await this.resumeDue();
  }

  // Runs left running by a process that stopped mid-run: failed, skip_reason `interrupted` (their
  // actions are not run again: some may have been done). The number finished.
  async finishInterrupted(): Promise<number> {
    const now = this.clock.now();
    const before = new Date(now.getTime() - RUN_INTERRUPTED_AFTER_MS);
    let total = 0;
    for (;;) {
      const finished = await this.db.asSystem((tx) => tx.execute(FINISH_INTERRUPTED, [before, now, BATCH]));
      total += finished;
      if (finished < BATCH) return total;
    }
  }

  // The number of timer rules this pass fired.
  async fireDue(): Promise<number> {
    const now = this.clock.now();
    return this.drain(
      () => this.db.asSystem((tx) => tx.query<DueTimer>(DUE_TIMERS, [now, BATCH])),
      (due) => `${due.episode_id}:${due.rule_id}`,
      async (due) => {
        const ctx = { organizationId: due.organization_id, userId: null, role: 'SYSTEM' as const, requestId: due.episode_id };
        const claimed = await this.db.inTenant(ctx, (tx) => tx.query(CLAIM_TIMER, [due.conversation_id, due.kind, due.episode_id, due.rule_id]));
        if (claimed.length === 0) return false; // another pass fired it, or a reply ended the episode
        await this.engine.fireTimer(due);
        return true;
      },
    );
  }

  // The number of waiting runs this pass resumed (or found taken).
  async resumeDue(): Promise<number> {
    const now = this.clock.now();
    return this.drain(
      () => this.db.asSystem((tx) => tx.query<{ id: string; organization_id: string }>(DUE_WAITS, [now, BATCH])),
      (run) => run.id,
      async (run) => {
        await this.engine.resume(run.organization_id, run.id);
        return true;
      },
    );
  }

  // Takes batches until one is short or brings nothing new (an organization that may not write
  // leaves its items due); one item's failure does not stop the others, and the first is thrown.
  private async drain<T>(find: () => Promise<T[]>, key: (item: T) => string, work: (item: T) => Promise<boolean>): Promise<number> {
    const seen = new Set<string>();
    let done = 0;
    let failure: unknown;
    for (;;) {
      const batch = (await find()).filter((item) => !seen.has(key(item)));
      for (const item of batch) {
        seen.add(key(item));
        try {
          if (await work(item)) done += 1;
        } catch (error) {
          if (sqlStateOf(error) !== '25006') failure ??= error;
        }
      }
      if (batch.length < BATCH) break;
    }
    if (failure) throw failure;
    return done;
  }
}
