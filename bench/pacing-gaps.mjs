// node bench/pacing-gaps.mjs: the default chat-app pacing over 200 automated sends of one account,
// as the queue worker weighs them (the same pure functions: effectivePacing, nextSendAt and the
// worker's gapDraw), on a simulated clock: each send goes at the earliest time the policy allows.
// Two runs: 200 recipients who wrote within 24 h (warm), and 200 who never wrote (cold); the account
// is past its warm-up, the recipients in Cairo, starting at 10:00 there. Reports the gaps between
// sends (min, percentiles, max, a histogram by whole second), what held each send that waited
// longer than the gap, and the hours the 200 took. Needs the build (npm run build). Writes
// bench/results/<BENCH_NAME>.json (default pacing-gaps-<date>).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = (path) => require(join(root, 'dist/out', path));
const { effectivePacing, nextSendAt } = dist('libs/messaging/src/outbound/pacing.js');
const { gapDraw } = dist('libs/messaging/src/outbound/queue.worker.js');
const name = process.env.BENCH_NAME ?? `pacing-gaps-${new Date().toISOString().slice(0, 10)}`;
const SENDS = 200;

function run(warm) {
  const policy = effectivePacing('chat_app', {});
  const start = new Date('2026-12-01T08:00:00Z'); // 10:00 in Cairo
  const accountId = '6f1c1d52-2a4e-4c1b-9a51-7d0e3b8c1a01';
  const createdAt = new Date(start.getTime() - 30 * 86_400_000);
  const sends = [];
  const held = {};
  let now = start;
  let last = null;
  for (let i = 0; i < SENDS; i++) {
    const random = gapDraw(accountId, last);
    const state = {
      now,
      accountCreatedAt: createdAt,
      accountSends: sends.filter((at) => at.getTime() > now.getTime() - 86_400_000),
      lastAutomatedSendAt: last,
      recipient: { lastInboundAt: warm ? new Date(now.getTime() - 3_600_000) : null, sends: [], timeZone: 'Africa/Cairo' },
    };
    const decision = nextSendAt(policy, state, () => random);
    if (decision.at > now) now = decision.at;
    held[decision.reason] = (held[decision.reason] ?? 0) + 1;
    sends.push(now);
    last = now;
  }
  const gaps = sends.slice(1).map((at, i) => (at.getTime() - sends[i].getTime()) / 1000);
  const sorted = [...gaps].sort((a, b) => a - b);
  const pct = (p) => Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2));
  const [low, high] = warm ? policy.gap_seconds : policy.cold_gap_seconds;
  const histogram = {};
  for (const gap of gaps.filter((g) => g <= high)) histogram[Math.floor(gap)] = (histogram[Math.floor(gap)] ?? 0) + 1;
  return {
    recipients: warm ? 'wrote within 24 h (warm)' : 'never wrote (cold)',
    policy_gap_seconds: [low, high],
    caps: { per_hour: policy.per_hour, per_day: policy.per_day },
    sends: SENDS,
    gap_seconds: { min: pct(0), p10: pct(10), p50: pct(50), p90: pct(90), max: Number(sorted.at(-1).toFixed(2)) },
    distinct_whole_seconds_within_range: Object.keys(histogram).length,
    histogram_within_range: histogram,
    gaps_longer_than_range: gaps.filter((g) => g > high).length,
    what_set_each_send_time: held,
    hours_for_200: Number(((sends.at(-1).getTime() - sends[0].getTime()) / 3_600_000).toFixed(2)),
  };
}

const result = { name, date: new Date().toISOString(), node: process.version, runs: [run(true), run(false)] };
writeFileSync(join(root, 'bench', 'results', `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
