import type { Tx } from '@engage/platform';
import { DAY_BOUNDS, ROLLUP_STATE, STALE_BUCKETS } from '../infrastructure/report.sql';
import { queryNamed } from '../infrastructure/sql-params';

export const QUARTER_MS = 15 * 60_000;
const floorQ = (ms: number) => Math.floor(ms / QUARTER_MS) * QUARTER_MS;
const ceilQ = (ms: number) => Math.ceil(ms / QUARTER_MS) * QUARTER_MS;

// Which instants a report reads from the rollups (rs..re, minus stale quarter hours) and which
// directly from the published views (ds..de). Both lists are disjoint and together cover exactly
// the report's span, so the figures are the same either way.
export interface Coverage {
  rs: Date[];
  re: Date[];
  ds: Date[];
  de: Date[];
  stale: Date[];
}

type Range = [number, number];

// Each span between consecutive boundaries (period starts and ends, local midnights) reads its
// whole quarter hours up to `limit` from the rollups and its edges directly; with no limit (nothing
// rolled for the current target and schedule) all of it directly. A boundary off the quarter hours (an odd
// offset, a timestamp parameter) only makes its edge quarter hour direct.
export function splitSpans(bounds: Date[], limit: number | null): { rollup: Range[]; direct: Range[] } {
  const rollup: Range[] = [];
  const direct: Range[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [a, b] = [bounds[i].getTime(), bounds[i + 1].getTime()];
    if (b <= a) continue;
    const s = ceilQ(a);
    const e = limit === null ? s : Math.min(floorQ(b), limit);
    if (s >= e) {
      direct.push([a, b]);
      continue;
    }
    rollup.push([s, e]);
    if (a < s) direct.push([a, s]);
    if (e < b) direct.push([e, b]);
  }
  return { rollup, direct };
}

export interface CoverageInput {
  bounds: Date[];
  // Unanswered customer messages before it are past the target (reporting-settings.ts, dueAt).
  due: Date | null;
  targetMinutes: number;
  schedule: string | null;
  // By day: the local days of the period, whose midnights become boundaries too.
  days?: { tz: string; first: string; last: string };
}

// In the report's transaction: rolled quarter hours are usable up to where the job got, if rolled
// for the current target and schedule, and only those that ended before `due` (their unanswered
// messages are all judged).
export async function coverage(tx: Tx, input: CoverageInput): Promise<Coverage> {
  const [state] = await queryNamed<{ rolled_until: Date | null; target_minutes: number; schedule: string | null }>(tx, ROLLUP_STATE, {});
  const current = state?.rolled_until && state.target_minutes === input.targetMinutes && state.schedule === input.schedule;
  const rolled = current && state.rolled_until ? state.rolled_until.getTime() : null;
  const limit = rolled === null || input.due === null ? null : Math.min(rolled, floorQ(input.due.getTime()));
  let bounds = input.bounds;
  if (input.days && limit !== null) {
    const [{ bounds: midnights }] = await queryNamed<{ bounds: Date[] }>(tx, DAY_BOUNDS, input.days);
    bounds = [bounds[0], ...midnights, bounds[bounds.length - 1]];
  }
  const { rollup, direct } = splitSpans(bounds, limit);
  const rs = rollup.map(([s]) => new Date(s));
  const re = rollup.map(([, e]) => new Date(e));
  const stale = rollup.length === 0 ? [] : (await queryNamed<{ bucket: Date }>(tx, STALE_BUCKETS, { rs, re })).map((row) => row.bucket);
  for (const bucket of stale) direct.push([bucket.getTime(), bucket.getTime() + QUARTER_MS]);
  return { rs, re, ds: direct.map(([s]) => new Date(s)), de: direct.map(([, e]) => new Date(e)), stale };
}
