// Campaign scenarios of `npm run bench` (figures in bench/results/, their history in HISTORY.md):
//
// - BROADCAST: BENCH_BROADCAST_RECIPIENTS (default 10,000) opted-in contacts with phones, one
//   broadcast of one unpersonalised text to them on a chat-app account with pacing off, one worker
//   process already running. Measured: the start (it writes every recipient in its transaction),
//   then recipients per second from the start to the last recipient with an outcome against the
//   loopback provider (10 receivers a call), and the worker's resident memory before, at its peak
//   and after.
// - DUE STEPS: 100,000 active enrolments of one sequence, 1,000 of them due: the worker's due-step
//   query (the statement the sequence pass runs, LIMIT 1,000) under EXPLAIN (ANALYZE, BUFFERS): its
//   plan and time. The enrolments are deleted afterwards.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { residentMiB } from './crm-scenarios.mjs';
import { UNPACED } from './outbound-queue-scenario.mjs';

export const BROADCAST = 'campaigns: a 10,000-recipient broadcast, pacing off';
export const DUE_STEPS = 'campaigns: 1,000 due steps among 100,000 enrolments';

const bearer = (s) => ({ authorization: `Bearer ${s.accessToken}`, 'content-type': 'application/json' });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(url, init, expected) {
  const res = await fetch(url, init);
  if (res.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function chatAppAccount(base, state, name) {
  const body = JSON.stringify({ kind: 'chat_app', name: `${name} ${Date.now()}` });
  const { channel_account: account } = await call(`${base}/functions/v1/messaging/channel-accounts`, { method: 'POST', headers: bearer(state), body }, 201);
  await call(
    `${base}/functions/v1/messaging/channel-accounts/${account.id}`,
    { method: 'PATCH', headers: bearer(state), body: JSON.stringify({ pacing: UNPACED }) },
    200,
  );
  return account.id;
}

// `startWorker` starts a worker process (answering the child); it runs before the broadcast starts.
export async function measureBroadcast({ base, state, databaseUrl, startWorker }) {
  const recipients = Number(process.env.BENCH_BROADCAST_RECIPIENTS ?? 10_000);
  const tag = `bcast-${Date.now()}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let worker;
  try {
    await client.query(
      `WITH made AS (
         INSERT INTO contacts (organization_id, first_name, last_name, phones, tags, opt_in_status)
         SELECT $1, 'Reader ' || n, 'Bench', ARRAY['+2016' || lpad(n::text, 8, '0')], ARRAY[$3], true
         FROM generate_series(1, $2::int) AS n
         ON CONFLICT DO NOTHING RETURNING id, organization_id, phones[1] AS phone)
       INSERT INTO contact_phones (organization_id, phone, contact_id) SELECT organization_id, phone, id FROM made ON CONFLICT DO NOTHING`,
      [state.organizationId, recipients, tag],
    );
    await client.query('VACUUM (ANALYZE) contacts, contact_phones');
    const account = await chatAppAccount(base, state, 'Broadcast');
    const body = JSON.stringify({
      name: `Bench broadcast ${tag}`,
      channel_account_id: account,
      audience: { filter: `tags=cs.{${tag}}` },
      content: { text: 'Weekend sale: 20% off everything' },
    });
    const broadcast = await call(`${base}/functions/v1/campaigns/broadcasts`, { method: 'POST', headers: bearer(state), body }, 201);
    worker = await startWorker();
    const rss = { before: residentMiB(worker.pid), peak: 0, after: 0 };
    const started = performance.now();
    await call(`${base}/functions/v1/campaigns/broadcasts/${broadcast.id}/start`, { method: 'POST', headers: bearer(state) }, 200);
    const startSeconds = (performance.now() - started) / 1000;
    const count = async (statuses) =>
      Number(
        (
          await client.query(`SELECT count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = $1 AND status = ANY($2::text[])`, [
            broadcast.id,
            statuses,
          ])
        ).rows[0].n,
      );
    const written = await count(['queued', 'sent', 'delivered', 'read', 'failed', 'replied', 'skipped_no_opt_in', 'skipped_duplicate', 'skipped_invalid']);
    let settled = 0;
    for (let waited = 0; waited < 900_000; waited += 100) {
      rss.peak = Math.max(rss.peak, residentMiB(worker.pid));
      settled = await count(['sent', 'delivered', 'read', 'failed', 'replied']);
      if (settled >= recipients) break;
      await sleep(100);
    }
    const seconds = (performance.now() - started) / 1000;
    rss.after = residentMiB(worker.pid);
    const failed = await count(['failed']);
    const { status } = await call(`${base}/functions/v1/campaigns/broadcasts/${broadcast.id}`, { headers: bearer(state) }, 200);
    return {
      scenario: BROADCAST,
      recipients,
      recipients_written: written,
      start_seconds: Number(startSeconds.toFixed(2)),
      settled,
      failed,
      broadcast_status: status,
      // From the start request to the last recipient with an outcome.
      seconds: Number(seconds.toFixed(2)),
      recipients_per_second: Math.round(settled / seconds),
      worker_rss_mib: rss,
    };
  } finally {
    await client.end();
    if (worker) worker.kill('SIGTERM');
  }
}

export async function measureDueSteps({ root, base, state, databaseUrl }) {
  const { SYSTEM_DUE_STEPS } = createRequire(import.meta.url)(join(root, 'dist', 'out', 'libs', 'campaigns', 'src', 'infrastructure', 'sequences.sql.js'));
  const account = await chatAppAccount(base, state, 'Drip');
  const body = JSON.stringify({ name: `Bench drip ${Date.now()}`, channel_account_id: account, steps: [{ delay: { days: 1 }, content: { text: 'Hello' } }] });
  const sequence = await call(`${base}/functions/v1/campaigns/sequences`, { method: 'POST', headers: bearer(state), body }, 201);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // 99,000 due tomorrow, 1,000 due a minute ago (contacts of their own: enrolments do not reach
    // them, the query under test reads only enrolments). The sequence stays a draft: no worker sends.
    await client.query(
      `INSERT INTO sequence_enrollments (organization_id, sequence_id, version, contact_id, status, next_step_at, enrolled_at)
       SELECT $1, $2, 1, gen_random_uuid(), 'active', now() + CASE WHEN n <= 1000 THEN interval '-1 minute' ELSE interval '1 day' END, now()
       FROM generate_series(1, 100000) AS n`,
      [state.organizationId, sequence.id],
    );
    await client.query('VACUUM (ANALYZE) sequence_enrollments');
    const explain = async () =>
      (await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${SYSTEM_DUE_STEPS}`, [new Date(), 1000])).rows[0]['QUERY PLAN'][0];
    await explain(); // warm
    const runs = [await explain(), await explain(), await explain()];
    const nodes = (plan) => [plan['Node Type'] + (plan['Index Name'] ? ` using ${plan['Index Name']}` : ''), ...(plan.Plans ?? []).flatMap(nodes)];
    const best = runs.reduce((a, b) => (a['Execution Time'] <= b['Execution Time'] ? a : b));
    return {
      scenario: DUE_STEPS,
      enrolments: 100_000,
      due: 1_000,
      rows: best.Plan['Actual Rows'],
      plan: nodes(best.Plan),
      execution_ms: runs.map((run) => Number(run['Execution Time'].toFixed(2))),
      planning_ms: Number(best['Planning Time'].toFixed(2)),
      shared_buffers_hit: best.Plan['Shared Hit Blocks'],
    };
  } finally {
    await client.query('DELETE FROM sequence_enrollments WHERE sequence_id = $1', [sequence.id]).catch(() => undefined);
    await client.end();
  }
}
