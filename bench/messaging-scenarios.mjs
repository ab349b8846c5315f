// Messaging scenarios of `npm run bench`:
// - POST /functions/v1/chat-lite-send against the loopback provider (bench/loopback-provider.mjs),
//   compared with a bare Fastify + pg route doing the same SQL and the same provider call;
// - the inbound receiver at a fixed 1,000 requests/s for BENCH_INBOUND_SECONDS: acknowledgement
//   latency (p99), zero loss (every 200 is a stored event and, once processed, one message), and the
//   time from the end of the load until every event is processed; then the same against a bare
//   Fastify + pg route running the same store statement, for the same worker;
// - the Meta webhook (Messenger) under the same load: signed bodies from 1,000 customers of one page.
import { createHmac } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuWindow } from './cpu-usage.mjs';
import { pacedLoad } from './paced-load.mjs';

const bearer = (s) => ({ authorization: `Bearer ${s.accessToken}` });
// Recipients rotate over 1,000 of the seeded contacts' numbers (+2010 00000001 ...): the send
// finds its contact and upserts one of 1,000 conversations, as steady traffic would.
const recipient = (n) => `2010${String((n % 1000) + 1).padStart(8, '0')}`;

function rotatingSend(state) {
  let n = 0;
  return (request) => ({ ...request, body: JSON.stringify({ to: recipient(n++), message: 'Your order has shipped', organizationId: state.organizationId }) });
}

export const messagingScenarios = [
  {
    name: 'POST chat-lite-send, loopback provider',
    ours: { path: '/functions/v1/chat-lite-send', method: 'POST', headers: bearer, setupRequest: rotatingSend },
    bare: { path: '/messaging/send', method: 'POST', headers: bearer, setupRequest: rotatingSend },
  },
];

// Our server reads the provider key (sealed) from the organization's settings: set it through the
// admin CLI, against the running server's database.
export function setProviderKey(root, env, databaseUrl, organizationId) {
  const args = ['set-org-setting', '--org', organizationId, '--key', 'appgain_api_key', '--value', 'bench-provider-key'];
  execFileSync(process.execPath, [join(root, 'dist', 'apps', 'api', 'admin.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The Meta app secret the bench's api is started with (META_APP_SECRET).
export const BENCH_META_SECRET = 'bench-meta-app-secret';
let pages = 0;

async function inboundChannel(baseUrl, state, name, meta = false) {
  const fields = meta ? { kind: 'messenger', page_id: `${Date.now()}${++pages}`, page_access_token: `EAAG${'b'.repeat(40)}` } : { kind: 'chat_app' };
  const created = await fetch(`${baseUrl}/functions/v1/messaging/channel-accounts`, {
    method: 'POST',
    headers: { ...bearer(state), 'content-type': 'application/json' },
    body: JSON.stringify({ ...fields, name: `${name} ${Date.now()}` }),
  });
  if (created.status !== 201) throw new Error(`channel account: ${created.status} ${await created.text()}`);
  const { channel_account: channel, inbound_token: token } = await created.json();
  return { channel, token };
}

function inboundLoad(url, { channel, token }, rate, seconds, connections) {
  let n = 0;
  if (channel.kind === 'messenger') {
    // One message of one of 1,000 customers per request, signed as Meta signs.
    return pacedLoad({
      url,
      rate,
      seconds,
      connections,
      headers: { 'content-type': 'application/json' },
      headersOf: (payload) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', BENCH_META_SECRET).update(payload).digest('hex')}` }),
      body: () => {
        n++;
        const messaging = [
          {
            sender: { id: `psid-${n % 1000}` },
            recipient: { id: channel.external_account_id },
            timestamp: Date.now(),
            message: { mid: `m_bench_${channel.id}_${n}`, text: `inbound ${n}` },
          },
        ];
        return JSON.stringify({ object: 'page', entry: [{ id: channel.external_account_id, time: Date.now(), messaging }] });
      },
    });
  }
  return pacedLoad({
    url,
    rate,
    seconds,
    connections,
    headers: { 'content-type': 'application/json', 'x-channel-token': token },
    body: () => {
      n++;
      return JSON.stringify({ type: 'message', id: `bench-in-${channel.id}-${n}`, from: `+${recipient(n)}`, text: `inbound ${n}` });
    },
  });
}

// Fixed-rate inbound load on one channel account, then the wait for the worker process to process
// everything. Counts come from the database, not from the server's word. As the other scenarios,
// it is measured after a warm-up at the same rate (BENCH_INBOUND_WARMUP_SECONDS, on a channel of its
// own, processed before the measured load starts); the warm-up's own figures are reported too.
// Then the same for the bare handler (`bareUrl`), storing into the same table for the same worker.
export async function measureInbound(
  baseUrl,
  state,
  databaseUrl,
  {
    rate = 1000,
    seconds = Number(process.env.BENCH_INBOUND_SECONDS ?? 10),
    warmupSeconds = Number(process.env.BENCH_INBOUND_WARMUP_SECONDS ?? 5),
    connections = 100,
    bareUrl,
    meta = false,
  } = {},
) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // Polled through the pending-events index (cheap, so the polling does not slow the drain).
  // Whether any is left: stops at the first (a count read every unprocessed event every 50 ms, a
  // load of the bench's own on the database while the worker drains).
  const waiting = async (channelId) =>
    (
      await client.query('SELECT count(*)::int AS n FROM (SELECT 1 FROM inbound_events WHERE processed_at IS NULL AND channel_account_id = $1 LIMIT 1) e', [
        channelId,
      ])
    ).rows[0].n;
  const drain = async (channelId) => {
    let left = await waiting(channelId);
    const deadline = Date.now() + 120_000;
    while (left > 0 && Date.now() < deadline) {
      await sleep(50);
      left = await waiting(channelId);
    }
  };
  const run = async (url) => {
    let warmup = null;
    if (warmupSeconds > 0) {
      const warm = await inboundChannel(baseUrl, state, 'Bench inbound warm-up', meta);
      const { p50_ms, p99_ms, max_ms, ok, sent } = await inboundLoad(url(warm.channel), warm, rate, warmupSeconds, connections);
      await drain(warm.channel.id);
      warmup = { seconds: warmupSeconds, sent, acknowledged: ok, p50_ms, p99_ms, max_ms };
    }
    // PostgreSQL as a server that has been running: a checkpoint recycles the WAL segments written
    // so far as the next ones. A fresh cluster has none and creates (zero-fills) a 16 MB file each
    // time the WAL enters a new segment, holding back every commit meanwhile: three times in the
    // measured 10 s, each a window of slow acknowledgements, for ours and the bare handler alike.
    const walRecycled = await client.query('CHECKPOINT').then(
      () => true,
      () => false,
    );
    const measured = await inboundChannel(baseUrl, state, 'Bench inbound', meta);
    const { channel } = measured;
    const loadWindow = cpuWindow();
    const result = await inboundLoad(url(channel), measured, rate, seconds, connections);
    const loadEnded = process.hrtime.bigint();
    const cpuDuringLoad = loadWindow();
    const drainWindow = cpuWindow();
    const acknowledged = result.ok;
    await drain(channel.id);
    const drainSeconds = Number(process.hrtime.bigint() - loadEnded) / 1e9;
    const cpuDuringDrain = drainWindow();
    const now = (
      await client.query(
        `SELECT (SELECT count(*)::int FROM inbound_events WHERE channel_account_id = $1) AS stored,
                (SELECT count(*)::int FROM inbound_events WHERE channel_account_id = $1 AND processed_at IS NULL) AS waiting,
                (SELECT count(*)::int FROM messages WHERE channel_account_id = $1 AND direction = 'INBOUND') AS messages`,
        [channel.id],
      )
    ).rows[0];
    // Meta: every message id sent, one by one, among the stored messages; then the wait (at most
    // 60 s) until the contacts' Graph profile jobs (one per new contact, same worker) have ended.
    const profilesPending = async () =>
      (await client.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'messaging.meta-profile' AND state <> 'dead'`)).rows[0].n;
    let profilesSeconds = null;
    if (meta) {
      const deadline = Date.now() + 60_000;
      while ((await profilesPending()) > 0 && Date.now() < deadline) await sleep(100);
      if ((await profilesPending()) === 0) profilesSeconds = Number((Number(process.hrtime.bigint() - loadEnded) / 1e9).toFixed(2));
    }
    const metaCheck = meta
      ? (
          await client.query(
            `SELECT (SELECT count(*)::int FROM generate_series(1, $2::int) AS n
                     WHERE EXISTS (SELECT 1 FROM messages WHERE channel_account_id = $1 AND external_id = 'm_bench_' || $1 || '_' || n)) AS ids_stored,
                    (SELECT count(*)::int FROM channel_contacts cc JOIN contacts c ON c.id = cc.contact_id
                     WHERE cc.channel_account_id = $1 AND c.first_name <> 'Unknown Contact') AS contacts_named,
                    (SELECT count(*)::int FROM channel_contacts WHERE channel_account_id = $1) AS contacts`,
            [channel.id, result.sent],
          )
        ).rows[0]
      : null;
    return {
      warmup,
      wal_recycled_before_load: walRecycled,
      ...(metaCheck && {
        message_ids_sent: result.sent,
        message_ids_stored: metaCheck.ids_stored,
        contacts: metaCheck.contacts,
        contacts_named_from_profile: metaCheck.contacts_named,
        profile_jobs_ended_seconds_after_load: profilesSeconds,
        profile_jobs_dead: (await client.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'messaging.meta-profile' AND state = 'dead'`)).rows[0].n,
        profile_job_errors: (
          await client.query(
            `SELECT last_error, count(*)::int AS n FROM jobs
             WHERE name = 'messaging.meta-profile' AND last_error IS NOT NULL GROUP BY 1 LIMIT 5`,
          )
        ).rows,
      }),
      sent: result.sent,
      acknowledged,
      errors: result.errors + result.non2xx,
      requests_per_second: result.requests_per_second,
      p50_ms: result.p50_ms,
      p90_ms: result.p90_ms,
      p99_ms: result.p99_ms,
      max_ms: result.max_ms,
      stored_events: now.stored,
      processed_messages: now.messages,
      lost: acknowledged - Math.min(now.stored, now.messages),
      all_processed_seconds_after_load: now.waiting === 0 ? Number(drainSeconds.toFixed(2)) : null,
      cpu_during_load: cpuDuringLoad,
      cpu_during_drain: cpuDuringDrain,
    };
  };
  try {
    const ours = await run((channel) => (meta ? `${baseUrl}/functions/v1/meta-webhook` : `${baseUrl}/functions/v1/chat-lite-webhook/${channel.id}`));
    const bare = bareUrl ? await run((channel) => (meta ? `${bareUrl}/messaging/meta` : `${bareUrl}/messaging/inbound/${channel.id}`)) : undefined;
    return {
      scenario: `${meta ? 'Meta webhook' : 'inbound'} acknowledgement at ${rate.toLocaleString('en')} req/s for ${seconds} s`,
      load: 'open loop, evenly spaced (bench/paced-load.mjs); latency counted from when each request was due',
      ...ours,
      ...(bare && { bare }),
    };
  } finally {
    await client.end();
  }
}

// The worker process (production shape: api + worker) that processes the stored inbound events.
export function startWorker(root, env, databaseUrl) {
  // BENCH_WORKER_PROFILE=<directory>: each worker writes a CPU profile there when it stops.
  const profile = process.env.BENCH_WORKER_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, join(root, 'dist', 'apps', 'worker', 'main.js')], {
    cwd: root,
    // At a lower CPU priority than the api and with a small pool, as docs/operations.md recommends
    // when they share a host.
    env: {
      ...process.env,
      ...env,
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      WORKER_NICE: process.env.WORKER_NICE ?? '10',
      DATABASE_POOL_SIZE: process.env.BENCH_WORKER_POOL_SIZE ?? '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // BENCH_WORKER_LOG=<file>: the worker's log lines, to see what its jobs said.
  const keep = (chunk) => {
    output += chunk;
    if (process.env.BENCH_WORKER_LOG) appendFileSync(process.env.BENCH_WORKER_LOG, chunk);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start in 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
    const poll = setInterval(() => {
      if (!output.includes('engage worker started')) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(child);
    }, 50);
  });
}
