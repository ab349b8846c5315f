import type { Database, Tx } from '@engage/platform';
import { defineJob, defineSchedule, type JobHandler } from '@engage/platform';
import { executeNamed, queryNamed } from '../infrastructure/sql-params';
import { ENSURE_STATE, FIRST_BUCKET, ORGANIZATIONS, READ_STATE, REROLL, RESET, ROLL_RANGE, SAVE_STATE, STALE } from '../infrastructure/rollup.sql';
import { calendar, type ReadSettings, type ReportingSettings, reportingSettings, responseValues, ruleOf } from './reporting-settings';
import { QUARTER_MS } from './rollup-coverage';

// A quarter hour is rolled this long after it ended, so a transaction that stored a message in it
// while it was the current one (no change recorded) has committed by then.
export const ROLLUP_GRACE_MS = 5 * 60_000;
// One transaction rolls at most this much of an organization's history (a first run catches up in steps).
const CHUNK_MS = 31 * 24 * 3600_000;
// Stale quarter hours re-rolled per transaction.
const STALE_BATCH = 5000;

export interface RollupRun {
  organizations: number;
  rolled: number;
  rerolled: number;
}

// Rolls newly ended quarter hours and re-rolls stale ones, for every organization with messages
// (docs/analytics.md, "Rollups"). Each step locks the organization's state row, so two runners
// never roll the same quarter hours at once, and every write is an upsert, so a step run twice
// leaves the same rows.
export class MessageRollups implements JobHandler {
  constructor(
    private readonly db: Database,
    private readonly readSettings: ReadSettings,
  ) {}

  async handle(): Promise<RollupRun> {
    const organizations = await this.db.asSystem((tx) => queryNamed<{ id: string }>(tx, ORGANIZATIONS, {}));
    const run: RollupRun = { organizations: organizations.length, rolled: 0, rerolled: 0 };
    // The database's clock: the one messaging's triggers tell ended quarter hours by.
    const [{ now }] = await this.db.systemQuery<{ now: Date }>('SELECT now()');
    const to = Math.floor((now.getTime() - ROLLUP_GRACE_MS) / QUARTER_MS) * QUARTER_MS;
    for (const { id } of organizations) {
      const settings = await reportingSettings(this.readSettings, id);
      while (await this.db.asSystem((tx) => this.step(tx, id, settings, { to, now }, run)));
    }
    return run;
  }

  // One step: stale quarter hours first, then the next chunk of ended ones. True while more remain.
  // Figures under the organization's target and schedule as read when the run began.
  private async step(tx: Tx, org: string, settings: ReportingSettings, { to, now }: { to: number; now: Date }, run: RollupRun): Promise<boolean> {
    const { targetMinutes: minutes, schedule } = settings;
    const rule = ruleOf(settings);
    const values = { org, minutes, schedule, ...responseValues(settings, null) };
    await queryNamed(tx, ENSURE_STATE, values);
    const [state] = await queryNamed<{ rolled_until: Date | null; target_minutes: number; schedule: string | null }>(tx, READ_STATE, values);
    let from = state.rolled_until?.getTime() ?? null;
    if (state.target_minutes !== minutes || state.schedule !== schedule) {
      await queryNamed(tx, RESET, values);
      from = null;
    }
    let more = false;
    if (from !== null) {
      const stale = await queryNamed<{ bucket: Date }>(tx, STALE, { ...values, until: new Date(from), limit: STALE_BATCH });
      if (stale.length > 0) {
        const days = await calendar(tx, settings, stale[0].bucket, now);
        await queryNamed(tx, REROLL[rule], { ...values, ...days, buckets: stale.map((row) => row.bucket) });
      }
      run.rerolled += stale.length;
      more = stale.length === STALE_BATCH;
    }
    if (from === null) {
      const [{ first }] = await queryNamed<{ first: Date | null }>(tx, FIRST_BUCKET, values);
      from = first ? Math.min(first.getTime(), to) : to;
    }
    const end = Math.min(to, from + CHUNK_MS);
    if (end > from) {
      const days = await calendar(tx, settings, new Date(from), now);
      run.rolled += await executeNamed(tx, ROLL_RANGE[rule], { ...values, ...days, from: new Date(from), to: new Date(end) });
    }
    await queryNamed(tx, SAVE_STATE, { ...values, to: new Date(Math.max(end, from)) });
    return more || end < to;
  }
}

export const analyticsSchedules = [
  defineSchedule({ job: defineJob({ name: 'analytics.message-rollups', handler: MessageRollups, leaseMs: 10 * 60_000 }), everyMs: 60_000 }),
];
