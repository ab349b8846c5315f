// Fair sharing (`npm run bench -- --only "fair sharing"`): one organization (the demo one) hammers
// the data API with slow reads from many connections while a second organization's simple reads
// run alongside, and a worker process stores the second organization's inbound messages. Recorded:
// both organizations' p50/p99 and status counts, the second's reads alone before the load (the
// baseline), the gate's refusals, and how the worker kept up (messages processed during the load,
// and how long after it the last one was).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuWindow } from './cpu-usage.mjs';
import { pacedLoad } from './paced-load.mjs';

export const FAIRNESS = 'fair sharing: slow reads of one organization, simple reads of another';

// Over the 100,000 seeded contacts: a pattern no index serves, an order to sort by and an exact
// count, about 100-300 ms of one backend each on 2 cores.
const SLOW_READ = '/rest/v1/contacts?select=id,first_name,last_name,phones,custom_fields&first_name=ilike.*9*9*&order=last_name.asc,created_at.desc&limit=1000';
const SIMPLE_READ = '/rest/v1/contacts?select=id,first_name&order=created_at.desc&limit=10';
const HAMMER_CONNECTIONS = Number(process.env.BENCH_FAIRNESS_CONNECTIONS ?? 40);
const INBOUND_RATE = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function load(url, headers, connections, seconds) {
  return new Promise((resolve, reject) =>
    autocannon({ url, headers, connections, duration: seconds, pipelining: 1 }, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

const summary = (result) => ({
  requests_per_second: result.requests.average,
  p50_ms: result.latency.p50,
  p99_ms: result.latency.p99,
  max_ms: result.latency.max,
  errors: result.errors + result.timeouts,
  statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count])),
});

async function refusals(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^org_gate_refused_total (\d+)/m.exec(text)?.[1] ?? NaN);
}

// The second organization, made with the admin CLI against the running server's database.
// Its owner signs in, so both organizations read /rest/v1 with a session.
async function createCalmOrganization(root, env, databaseUrl, base) {
  const email = 'calm-owner@bench.invalid';
  const password = `Calm-${Date.now()}-pw!`;
  const out = execFileSync(
    process.execPath,
    [join(root, 'dist', 'apps', 'api', 'admin.js'), 'create-org', '--name', 'Bench calm', '--owner-email', email, '--owner-password', password, '--json'],
    { cwd: root, env: { ...process.env, ...env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const created = JSON.parse(out.toString());
  const login = await fetch(`${base}/functions/v1/mobile-api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`calm owner login: ${login.status} ${await login.text()}`);
  return { ...created, accessToken: (await login.json()).access_token };
}

export async function measureFairness({ root, env, databaseUrl, base, state, seconds, drained }) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const calm = await createCalmOrganization(root, env, databaseUrl, base);
    const calmHeaders = { authorization: `Bearer ${calm.accessToken}` };
    await client.query(`INSERT INTO contacts (organization_id, first_name, last_name) SELECT $1, 'Calm ' || n, 'Contact' FROM generate_series(1, 200) AS n`, [
      calm.organization_id,
    ]);
    const created = await fetch(`${base}/functions/v1/messaging/channel-accounts`, {
      method: 'POST',
      headers: { ...calmHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'chat_app', name: 'Bench calm inbound' }),
    });
    if (created.status !== 201) throw new Error(`channel account: ${created.status} ${await created.text()}`);
    const { channel_account: channel, inbound_token: token } = await created.json();

    // The calm organization alone first (after a warm-up), as the baseline.
    await load(`${base}${SIMPLE_READ}`, calmHeaders, 4, 3);
    const alone = summary(await load(`${base}${SIMPLE_READ}`, calmHeaders, 4, seconds));
    await drained(base);

    const refusedBefore = await refusals(base);
    let n = 0;
    // Where the two cores go while one organization hammers (the gate shares connections, not CPU).
    const cpu = cpuWindow();
    const [hammer, calmReads, inbound] = await Promise.all([
      load(`${base}${SLOW_READ}`, { authorization: `Bearer ${state.accessToken}`, prefer: 'count=exact' }, HAMMER_CONNECTIONS, seconds),
      // Starts once the hammering has filled its organization's slots and queue.
      sleep(500).then(() => load(`${base}${SIMPLE_READ}`, calmHeaders, 4, seconds - 1)),
      pacedLoad({
        url: `${base}/functions/v1/chat-lite-webhook/${channel.id}`,
        rate: INBOUND_RATE,
        seconds,
        connections: 10,
        headers: { 'content-type': 'application/json', 'x-channel-token': token },
        body: () => JSON.stringify({ type: 'message', id: `bench-fair-${++n}`, from: `+2011${String(n).padStart(8, '0')}`, text: `inbound ${n}` }),
      }),
    ]);
    const loadEnded = Date.now();
    const cpuDuringLoad = cpu();
    const counts = async () =>
      (
        await client.query(
          `SELECT count(*)::int AS stored, count(*) FILTER (WHERE processed_at IS NOT NULL)::int AS processed
           FROM inbound_events WHERE channel_account_id = $1`,
          [channel.id],
        )
      ).rows[0];
    const atEnd = await counts();
    let now = atEnd;
    while (now.processed < now.stored && Date.now() - loadEnded < 60_000) {
      await sleep(50);
      now = await counts();
    }
    await drained(base);
    // Why events are still waiting, if any are (the processor's last error of each, counted).
    const { rows: waitingErrors } = await client.query(
      `SELECT last_error, attempts, count(*)::int AS n FROM inbound_events WHERE channel_account_id = $1 AND (processed_at IS NULL OR last_error IS NOT NULL)
       GROUP BY last_error, attempts ORDER BY n DESC LIMIT 5`,
      [channel.id],
    );
    return {
      scenario: FAIRNESS,
      seconds,
      hammering: { organization: 'demo', connections: HAMMER_CONNECTIONS, path: SLOW_READ, prefer: 'count=exact', ...summary(hammer) },
      calm: { connections: 4, path: SIMPLE_READ, alone, under_load: summary(calmReads) },
      gate_refusals: (await refusals(base)) - refusedBefore,
      cpu_during_load: cpuDuringLoad,
      worker: {
        inbound_sent: inbound.sent,
        inbound_acknowledged: inbound.ok,
        inbound_p99_ms: inbound.p99_ms,
        processed_when_load_ended: atEnd.processed,
        stored_when_load_ended: atEnd.stored,
        all_processed_seconds_after_load: now.processed === now.stored ? Number(((Date.now() - loadEnded) / 1000).toFixed(2)) : null,
        unprocessed_or_failed: waitingErrors,
      },
    };
  } finally {
    await client.end();
  }
}
