// npm run faults: fault injection against the built service (docs/operations.md, "Fault injection").
// Starts PostgreSQL (embedded binaries, a temporary dir), a Kafka broker (scripts/kafka-local.sh),
// two apis and two workers on them, a webhook receiver and a slow Graph API stand-in; posts inbound
// chat-app and Messenger messages to both apis at a steady rate and, meanwhile, kills a worker and
// an api with SIGKILL (each started again), restarts the broker and restarts PostgreSQL. Then it
// waits for the drain and counts, from the providers' side, the database and the receiver: sent,
// acknowledged, stored (once?), delivered (under one webhook-id?), duplicated, lost, how long
// deliveries took to resume after the broker came back, and which jobs ran twice after the kill.
// Prints a JSON summary, writes it to bench/results/faults-<date>.json, exits 1 when an
// acknowledged message was lost or stored twice (2 when the run itself failed).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chatAppRequest, messengerRequest, startGraph, startReceiver, SteadyLoad } from './faults-peers.mjs';
import { makeCert } from './self-signed-cert.mjs';
import {
  Broker,
  cpuSnapshot,
  freePort,
  killAllSync,
  logProblems,
  portOpen,
  Postgres,
  projectNode,
  Service,
  sleep,
  snapshotBuild,
  track,
} from './faults-services.mjs';
import { channelFigures, jobFigures, longestGap, percentile, resumeSeconds, round } from './faults-figures.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const num = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number (got "${value}")`);
  return n;
};

const settings = {
  seconds: num('FAULTS_SECONDS', 120),
  rate: num('FAULTS_RATE', 50),
  metaRate: num('FAULTS_META_RATE', 3),
  graphDelayMs: num('FAULTS_GRAPH_DELAY_MS', 2000),
  downSeconds: num('FAULTS_DOWN_SECONDS', 5),
  brokerDownSeconds: num('FAULTS_BROKER_DOWN_SECONDS', 5),
  dbDownSeconds: num('FAULTS_DB_DOWN_SECONDS', 5),
  drainSeconds: num('FAULTS_DRAIN_SECONDS', 150),
  expireLeases: process.env.FAULTS_EXPIRE_LEASES !== '0',
  jobsConcurrency: num('JOBS_CONCURRENCY', 4),
  // Unset: the service's defaults.
  workerPoolSize: process.env.FAULTS_WORKER_POOL_SIZE ? num('FAULTS_WORKER_POOL_SIZE') : undefined,
  workerNice: process.env.FAULTS_WORKER_NICE ? num('FAULTS_WORKER_NICE') : undefined,
  // Deliveries in flight per endpoint (WEBHOOK_CONCURRENCY_PER_ENDPOINT, default 4): with 4, one
  // endpoint fell behind 50 events/s on the shared 2-core machine even without faults (docs/operations.md).
  webhookConcurrency: num('FAULTS_WEBHOOK_CONCURRENCY', 16),
  firstSeconds: num('FAULTS_FIRST_SECONDS', 10),
  gapSeconds: num('FAULTS_GAP_SECONDS', 15),
  killWaitSeconds: num('FAULTS_KILL_WAIT_SECONDS', 15),
  // Faults left out: any of worker, api, broker, database (comma-separated); `all` runs none.
  skip: (process.env.FAULTS_SKIP ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
};
const skipped = (fault) => settings.skip.includes(fault) || settings.skip.includes('all');

const t0 = Date.now();
const log = (line) => process.stderr.write(`[faults +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Everything started, so any way out ends it all.
const state = { dir: undefined, pg: undefined, broker: undefined, services: [], servers: [], monitor: undefined, aborting: false, cleaned: false };

function cleanupSync() {
  killAllSync();
  state.broker?.stopSync();
  if (state.dir && process.env.FAULTS_KEEP !== '1') rmSync(state.dir, { recursive: true, force: true });
}

async function cleanup(graceful) {
  if (state.cleaned) return;
  state.cleaned = true;
  await state.monitor?.end().catch(() => undefined);
  await Promise.all(state.services.map((s) => (graceful ? s.stop() : s.kill()).catch(() => undefined)));
  await state.pg?.stop().catch(() => undefined);
  state.receiver?.kill();
  state.broker?.stopSync();
  for (const server of state.servers) {
    server.closeAllConnections?.();
    server.close();
  }
  if (state.dir && process.env.FAULTS_KEEP === '1') log(`kept ${state.dir} (FAULTS_KEEP=1)`);
  else if (state.dir) rmSync(state.dir, { recursive: true, force: true });
}

process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (state.aborting) process.exit(130);
    state.aborting = true;
    log(`${signal}: stopping everything`);
    cleanup(false).finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------

async function json(res, expected, what) {
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${what}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

// The organization (admin CLI), its owner's session, a chat-app and a Messenger channel, and a
// webhook configuration for message.received pointing at the receiver.
async function setUp(env, dist, node, api, receiver, run) {
  const email = `faults-${run}@example.com`;
  const password = `Faults-${randomBytes(9).toString('base64url')}-9a`;
  const out = execFileSync(
    node,
    [join(dist, 'apps', 'api', 'admin.js'), 'create-org', '--name', `Faults ${run}`, '--owner-email', email, '--owner-password', password, '--json'],
    { cwd: root, env: { ...process.env, ...env, DATA_DIR: join(state.dir, 'admin'), LOG_LEVEL: 'warn' }, encoding: 'utf8' },
  );
  const org = JSON.parse(out.trim().split('\n').pop());
  if (!org.organization_id) throw new Error(`create-org: ${out}`);
  const login = await json(
    await fetch(`${api}/functions/v1/mobile-api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    }),
    200,
    'login',
  );
  const auth = { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' };
  const chat = await json(
    await fetch(`${api}/functions/v1/messaging/channel-accounts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ kind: 'chat_app', name: 'Faults chat' }),
    }),
    201,
    'chat-app channel',
  );
  const pageId = `9${Date.now()}`;
  const messenger = await json(
    await fetch(`${api}/functions/v1/messaging/channel-accounts`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ kind: 'messenger', name: 'Faults page', page_id: pageId, page_access_token: `EAAG${'f'.repeat(40)}` }),
    }),
    201,
    'messenger channel',
  );
  const [webhook] = await json(
    await fetch(`${api}/rest/v1/webhook_configurations`, {
      method: 'POST',
      headers: { ...auth, prefer: 'return=representation' },
      body: JSON.stringify({ name: 'faults receiver', url: `${receiver.url}/hooks`, events: ['message.received'] }),
    }),
    201,
    'webhook configuration',
  );
  return {
    organizationId: org.organization_id,
    chat: { id: chat.channel_account.id, token: chat.inbound_token },
    messenger: { id: messenger.channel_account.id, pageId },
    webhookId: webhook.id,
  };
}

// A connection of the script's own for the checks (superuser: row-level security does not apply).
// Queries fail while PostgreSQL is down; callers that poll treat that as "not yet".
function monitorPool(url) {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
  pool.on('error', () => undefined);
  return pool;
}

const one = async (pool, sql, params = []) => (await pool.query(sql, params)).rows[0];

// Samples the delivery queue of the run's webhook and the outbox once a second (none while the
// database is away).
class QueueSampler {
  samples = [];
  #timer;
  #busy;
  constructor(pool, webhookId) {
    this.pool = pool;
    this.webhookId = webhookId;
  }
  start() {
    this.#timer = setInterval(() => {
      if (this.#busy) return;
      const at = Date.now();
      this.#busy = this.pool
        .query(
          `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = $1 AND status IN ('pending', 'retrying') AND (locked_until IS NULL OR locked_until <= now())) AS waiting,
                  (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = $1 AND status IN ('pending', 'retrying') AND locked_until > now()) AS in_flight,
                  (SELECT count(*)::int FROM outbox WHERE published_at IS NULL) AS unpublished`,
          [this.webhookId],
        )
        .then(({ rows: [row] }) => this.samples.push({ at, waiting: row.waiting, inFlight: row.in_flight, unpublished: row.unpublished }))
        .catch(() => undefined)
        .finally(() => (this.#busy = undefined));
    }, 1000);
    this.#timer.unref();
  }
  async stop() {
    clearInterval(this.#timer);
    await this.#busy;
  }
  // The sample nearest to `ms`.
  at(ms) {
    return this.samples.reduce((best, s) => (!best || Math.abs(s.at - ms) < Math.abs(best.at - ms) ? s : best), undefined);
  }
}

// Done when every retry is settled, every event processed, published and delivered, and no profile
// job is queued or calling the Graph stand-in. A job left `running` whose worker could not record
// its end (its lease runs 5 minutes) is not waited for; the summary counts those.
async function drained(pool, setup, loads, receiver, graph) {
  if (loads.some((l) => l.pending.size > 0)) return { done: false, why: 'providers still retrying' };
  const row = await one(
    pool,
    `SELECT (SELECT count(*)::int FROM inbound_events WHERE processed_at IS NULL AND channel_account_id = ANY($1::uuid[])) AS inbound,
            (SELECT count(*)::int FROM outbox WHERE published_at IS NULL) AS outbox,
            (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = $2 AND status IN ('pending', 'retrying')) AS deliveries,
            (SELECT count(*)::int FROM jobs WHERE name = 'messaging.meta-profile' AND state = 'queued') AS jobs,
            (SELECT count(*)::int FROM messages WHERE channel_account_id = ANY($1::uuid[]) AND direction = 'INBOUND') AS stored`,
    [[setup.chat.id, setup.messenger.id], setup.webhookId],
  );
  const delivered = new Set(receiver.deliveries.map((d) => d.messageId)).size;
  const lookups = graph.inFlight();
  const done = row.inbound === 0 && row.outbox === 0 && row.deliveries === 0 && row.jobs === 0 && lookups === 0 && delivered >= row.stored;
  return {
    done,
    why: `inbound ${row.inbound}, outbox ${row.outbox}, deliveries ${row.deliveries}, profile jobs queued ${row.jobs} (look-ups in flight ${lookups}), delivered ${delivered}/${row.stored}`,
  };
}

async function main() {
  if (!Broker.supported(root)) {
    throw new Error('scripts/kafka-local.sh does not support KAFKA_STATE_DIR and KAFKA_KEEP_DATA (a broker of its own, restarted on its data)');
  }
  if (process.env.FAULTS_NO_BUILD !== '1') execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: ['ignore', 2, 2] });
  const run = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  state.dir = mkdtempSync(join(tmpdir(), 'engage-faults-'));
  chmodSync(state.dir, 0o755);
  const logs = join(state.dir, 'logs');
  mkdirSync(logs);
  log(`run ${run} in ${state.dir}; load ${settings.seconds} s at ${settings.rate} chat-app + ${settings.metaRate} Messenger messages/s`);
  const dist = await snapshotBuild(root, state.dir);
  const node = projectNode(root);

  // PostgreSQL and the broker.
  const [pgPort, kafkaPort, controllerPort, apiPortA, apiPortB] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  state.pg = new Postgres(state.dir, pgPort, join(logs, 'postgres.log'));
  state.broker = new Broker(root, state.dir, kafkaPort, controllerPort);
  const startedPeers = Date.now();
  state.pg.init();
  await Promise.all([state.pg.start(), state.broker.start()]);
  const admin = new pg.Client({ connectionString: state.pg.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE engage');
  await admin.end();
  log(`PostgreSQL on 127.0.0.1:${pgPort} and Kafka on 127.0.0.1:${kafkaPort} up in ${((Date.now() - startedPeers) / 1000).toFixed(1)} s`);

  const cert = makeCert(state.dir);
  const receiver = await startReceiver(cert, track);
  const graph = await startGraph(settings.graphDelayMs);
  state.servers.push(graph.server);
  state.receiver = receiver.child;

  const appSecret = randomBytes(16).toString('hex');
  const env = {
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    DATABASE_URL: state.pg.url,
    KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost',
    NODE_EXTRA_CA_CERTS: cert.certPath,
    META_APP_SECRET: appSecret,
    META_VERIFY_TOKEN: randomBytes(16).toString('hex'),
    META_GRAPH_URL: `${graph.url}/v23.0`,
    JOBS_CONCURRENCY: String(settings.jobsConcurrency),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(settings.webhookConcurrency),
    NODE_PATH: join(root, 'node_modules'),
  };
  const api = (name, port) =>
    new Service({
      root,
      dist,
      node,
      name,
      kind: 'api',
      env: { ...env, PORT: String(port), DATA_DIR: join(state.dir, name), LOG_LEVEL: 'warn' },
      logFile: join(logs, `${name}.log`),
    });
  const worker = (name) =>
    new Service({
      root,
      dist,
      node,
      name,
      kind: 'worker',
      env: {
        ...env,
        DATA_DIR: join(state.dir, name),
        LOG_LEVEL: 'info',
        ...(settings.workerNice !== undefined && { WORKER_NICE: String(settings.workerNice) }),
        ...(settings.workerPoolSize !== undefined && { DATABASE_POOL_SIZE: String(settings.workerPoolSize) }),
      },
      logFile: join(logs, `${name}.log`),
    });
  const apiA = api('api-a', apiPortA);
  const apiB = api('api-b', apiPortB);
  const workerA = worker('worker-a');
  const workerB = worker('worker-b');
  state.services.push(apiA, apiB, workerA, workerB);
  // The first api applies the migrations; the others start together after it.
  await apiA.start();
  await Promise.all([apiB.start(), workerA.start(), workerB.start()]);
  const apis = [`http://127.0.0.1:${apiPortA}`, `http://127.0.0.1:${apiPortB}`];
  const setup = await setUp(env, dist, node, apis[0], receiver, run);
  const startupSeconds = (Date.now() - t0) / 1000;
  log(`2 apis and 2 workers up; organization ${setup.organizationId} set up (${startupSeconds.toFixed(1)} s)`);

  state.monitor = monitorPool(state.pg.url);
  const monitor = state.monitor;

  // The load, until FAULTS_SECONDS have passed and the last fault is FAULTS_GAP_SECONDS behind.
  let giveUpAt = Infinity;
  let loadUntil = Infinity;
  const load = (name, rate, request) => new SteadyLoad({ name, rate, apis: () => apis, request, until: () => loadUntil, giveUpAt: () => giveUpAt });
  const loads = [
    load('chat_app', settings.rate, chatAppRequest(run, setup.chat.id, setup.chat.token)),
    load('messenger', settings.metaRate, messengerRequest(run, setup.messenger.pageId, appSecret)),
  ].filter((l) => l.rate > 0);
  const loadStart = Date.now();
  const cpuAtStart = cpuSnapshot(state.dir);
  const loadAverageAtStart = loadavg().map((l) => round(l));
  const since = (ms) => round((ms - loadStart) / 1000);
  const loading = Promise.all(loads.map((l) => l.run()));
  // Once a second until the drain ends: deliveries waiting to be sent and events waiting to be
  // published, so a late receipt can be told apart as a queue that fell behind or a flow that stopped.
  const queues = new QueueSampler(monitor, setup.webhookId);
  queues.start();
  const faults = [];
  const kills = [];
  const untilT = async (when) => {
    const wait = when - Date.now();
    if (wait > 0) await sleep(wait);
  };
  // Each fault starts FAULTS_GAP_SECONDS after the previous one was over (the first at
  // FAULTS_FIRST_SECONDS), so what one leaves behind is measured before the next begins.
  let next = loadStart + settings.firstSeconds * 1000;

  // 1. kill -9 a worker while it runs profile jobs, start it again.
  if (!skipped('worker')) {
    await untilT(next);
    const pid = workerA.pid;
    // Killed once it holds a few running jobs (up to FAULTS_KILL_WAIT_SECONDS), so the kill cuts jobs off.
    const waitUntil = Date.now() + settings.killWaitSeconds * 1000;
    const runningOnA = async () =>
      (
        await one(monitor, `SELECT count(*)::int AS n FROM jobs WHERE name = 'messaging.meta-profile' AND state = 'running' AND locked_by LIKE $1`, [
          `%:${pid}:%`,
        ])
      ).n;
    while (Date.now() < waitUntil && (await runningOnA()) < Math.min(2, settings.jobsConcurrency)) await sleep(100);
    const inFlight = graph.inFlight();
    const killedAt = Date.now();
    await workerA.kill();
    const stranded = (await monitor.query(`SELECT id, payload->>'userId' AS psid FROM jobs WHERE state = 'running' AND locked_by LIKE $1`, [`%:${pid}:%`]))
      .rows;
    const deliveriesLeased = (
      await one(monitor, `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'retrying') AND locked_until > now()`)
    ).n;
    if (settings.expireLeases && stranded.length) {
      // As if their 5-minute lease had run out: the other worker's requeue pass (every 5 s) takes them.
      await monitor.query(`UPDATE jobs SET locked_until = now() WHERE id = ANY($1::bigint[]) AND state = 'running'`, [stranded.map((r) => r.id)]);
    }
    kills.push({ at: killedAt, pid, stranded_psids: stranded.map((r) => r.psid).filter(Boolean) });
    log(`killed worker-a (pid ${pid}): ${inFlight} profile look-ups in flight (both workers), ${stranded.length} jobs left running by it`);
    await sleep(settings.downSeconds * 1000);
    const cutOff = graph.calls.filter((c) => c.aborted !== null && c.aborted >= killedAt).length;
    const ready = await workerA.start();
    const upAt = Date.now();
    faults.push({
      fault: 'kill -9 worker',
      at_s: since(killedAt),
      pid,
      down_s: round((upAt - killedAt) / 1000),
      restart_ready_s: round(ready),
      profile_lookups_in_flight_both_workers: inFlight,
      profile_lookups_cut_off_by_kill: cutOff,
      jobs_running_at_kill: stranded.length,
      jobs_concurrency: settings.jobsConcurrency,
      leases_expired_by_script: settings.expireLeases,
      webhook_deliveries_leased_at_kill_both_workers: deliveriesLeased,
      startAt: killedAt,
      upAt,
    });
    next = upAt + settings.gapSeconds * 1000;
  }

  // 2. kill -9 an api, start it again.
  if (!skipped('api')) {
    await untilT(next);
    const pid = apiA.pid;
    const killedAt = Date.now();
    await apiA.kill();
    log(`killed api-a (pid ${pid})`);
    await sleep(settings.downSeconds * 1000);
    const ready = await apiA.start();
    const upAt = Date.now();
    faults.push({
      fault: 'kill -9 api',
      at_s: since(killedAt),
      pid,
      down_s: round((upAt - killedAt) / 1000),
      restart_ready_s: round(ready),
      startAt: killedAt,
      upAt,
    });
    next = upAt + settings.gapSeconds * 1000;
  }

  // 3. The broker: stopped cleanly (data kept), down a while, started again on its data.
  if (!skipped('broker')) {
    await untilT(next);
    const stopAt = Date.now();
    let downAt;
    let upAt;
    if (settings.brokerDownSeconds > 0) {
      await state.broker.stopKeepingData();
      downAt = Date.now();
      log(`broker stopped (${((downAt - stopAt) / 1000).toFixed(1)} s)`);
      await sleep(settings.brokerDownSeconds * 1000);
      await state.broker.start();
      upAt = Date.now();
    } else {
      // No pause: the script's own restart (stop keeping the data, start on it).
      const closed = (async () => {
        while (await portOpen(state.broker.port)) await sleep(100);
        return Date.now();
      })();
      await state.broker.restart();
      upAt = Date.now();
      downAt = await closed;
    }
    log(`broker answers again (${((upAt - stopAt) / 1000).toFixed(1)} s after the stop began)`);
    faults.push({
      fault: 'broker restart',
      at_s: since(stopAt),
      stop_s: round((downAt - stopAt) / 1000),
      down_s: round((upAt - downAt) / 1000),
      startAt: stopAt,
      downAt,
      upAt,
    });
    next = upAt + settings.gapSeconds * 1000;
  }

  // 4. PostgreSQL: fast shutdown, down a while, started again.
  if (!skipped('database')) {
    await untilT(next);
    const stopAt = Date.now();
    await state.pg.stop();
    const downAt = Date.now();
    log(`PostgreSQL stopped (${((downAt - stopAt) / 1000).toFixed(1)} s)`);
    await sleep(settings.dbDownSeconds * 1000);
    await state.pg.start();
    const upAt = Date.now();
    log('PostgreSQL started again');
    faults.push({
      fault: 'PostgreSQL restart',
      at_s: since(stopAt),
      stop_s: round((downAt - stopAt) / 1000),
      down_s: round((upAt - downAt) / 1000),
      startAt: stopAt,
      downAt,
      upAt,
    });
    next = upAt + settings.gapSeconds * 1000;
  }

  loadUntil = Math.max(loadStart + settings.seconds * 1000, next);
  await loading;
  const loadEnd = Date.now();
  giveUpAt = loadEnd + 60_000;
  log(`load ended (${loads.map((l) => `${l.name} ${l.messages.length}`).join(', ')}); waiting for the drain`);

  // The drain: every retry settled, every event processed, published and delivered, every job done.
  const drainDeadline = loadEnd + settings.drainSeconds * 1000;
  let status = { done: false, why: 'not checked' };
  let lastReport = 0;
  while (Date.now() < drainDeadline) {
    status = await drained(monitor, setup, loads, receiver, graph).catch((error) => ({ done: false, why: error.message }));
    if (status.done) break;
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      log(`draining: ${status.why}`);
    }
    await sleep(1000);
  }
  const drainSeconds = (Date.now() - loadEnd) / 1000;
  await queues.stop();
  const cpuAtEnd = cpuSnapshot(state.dir);
  const window = (Date.now() - loadStart) / 1000;
  const cpu = cpuAtStart &&
    cpuAtEnd && {
      wall_s: round(window),
      machine_cpu_s: round(window * cpus().length),
      busy_cpu_s: round(cpuAtEnd.busy - cpuAtStart.busy),
      this_run_cpu_s: round(cpuAtEnd.ours - cpuAtStart.ours),
      other_work_cpu_s: round(Math.max(0, cpuAtEnd.busy - cpuAtStart.busy - (cpuAtEnd.ours - cpuAtStart.ours))),
      steal_cpu_s: round(cpuAtEnd.steal - cpuAtStart.steal),
    };
  log(status.done ? `drained ${drainSeconds.toFixed(1)} s after the load` : `not drained after ${settings.drainSeconds} s: ${status.why}`);

  // Counting.
  const storedOf = async (channelId) =>
    (
      await monitor.query(`SELECT external_id, count(*)::int AS n FROM messages WHERE channel_account_id = $1 AND direction = 'INBOUND' GROUP BY 1`, [
        channelId,
      ])
    ).rows;
  const channels = { chat_app: setup.chat.id, messenger: setup.messenger.id };
  const perChannel = {};
  for (const load of loads) {
    const channelId = channels[load.name];
    perChannel[load.name] = channelFigures(load, await storedOf(channelId), receiver, channelId);
    perChannel[load.name].inbound_events = await one(
      monitor,
      `SELECT count(*)::int AS stored, count(*) FILTER (WHERE processed_at IS NULL)::int AS unprocessed,
              count(*) FILTER (WHERE last_error IS NOT NULL)::int AS settled_with_error
       FROM inbound_events WHERE channel_account_id = $1`,
      [channelId],
    );
    perChannel[load.name].inbound_event_errors = (
      await monitor.query(
        `SELECT last_error, count(*)::int AS n FROM inbound_events WHERE channel_account_id = $1 AND last_error IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
        [channelId],
      )
    ).rows;
    perChannel[load.name].server_errors_seen = load.serverErrors;
  }
  const deliveryRows = (await monitor.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY 1`, [setup.webhookId]))
    .rows;
  const attemptRows = await one(
    monitor,
    `SELECT count(*)::int AS attempts, count(*) FILTER (WHERE status <> 'success')::int AS failed FROM webhook_logs WHERE webhook_id = $1`,
    [setup.webhookId],
  );
  const jobRows = (await monitor.query(`SELECT state, count(*)::int AS n FROM jobs WHERE name = 'messaging.meta-profile' GROUP BY 1`)).rows;
  // Jobs still `running`: their worker could not record their end (or was killed and the lease was
  // left to run out); each runs again when its lease lapses.
  const leftRunning = (
    await monitor.query(
      `SELECT locked_by, round(extract(epoch FROM locked_until - now()))::int AS lease_left_s, last_error FROM jobs WHERE name = 'messaging.meta-profile' AND state = 'running'`,
    )
  ).rows;
  const named = await one(
    monitor,
    `SELECT count(*)::int AS contacts, count(*) FILTER (WHERE c.first_name <> 'Unknown Contact')::int AS named
     FROM channel_contacts cc JOIN contacts c ON c.id = cc.contact_id WHERE cc.channel_account_id = $1`,
    [setup.messenger.id],
  );
  const outboxEvents = await one(
    monitor,
    `SELECT count(*)::int AS events, count(DISTINCT aggregate_id)::int AS messages FROM outbox WHERE type = 'message.received' AND organization_id = $1`,
    [setup.organizationId],
  );

  // Per fault, up to when the next one began: the providers' failed attempts (0: no answer), the
  // longest pause in deliveries, and when the flow resumed.
  const failuresBetween = (from, to) => {
    const counts = {};
    for (const load of loads)
      for (const [ms, status] of load.failures) if (loadStart + ms >= from && loadStart + ms <= to) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  };
  const firstAfter = async (sql, params, since) => {
    const at = (await one(monitor, sql, params)).at;
    return at ? round((at.getTime() - since) / 1000) : null;
  };
  faults.forEach((fault, i) => {
    const until = faults[i + 1]?.startAt ?? Infinity;
    fault.failed_requests = failuresBetween(fault.startAt, Math.min(fault.upAt + 10_000, until));
    fault.longest_delivery_pause_s = longestGap(receiver.deliveries, fault.startAt, Math.min(fault.upAt + 60_000, until, Date.now()));
  });
  const brokerFault = faults.find((f) => f.fault === 'broker restart');
  const dbFault = faults.find((f) => f.fault === 'PostgreSQL restart');
  if (brokerFault) {
    // Messages stored after the broker stopped reach the delivery queue only through the broker
    // started again: the first of them queued (webhook_deliveries.created_at, the consumer's
    // commit) and received, counted from when the broker answered.
    brokerFault.relay_published_again_s = await firstAfter(
      `SELECT min(published_at) AS at FROM outbox WHERE published_at >= $1`,
      [new Date(brokerFault.upAt)],
      brokerFault.upAt,
    );
    brokerFault.deliveries_queued_again_s = await firstAfter(
      `SELECT min(created_at) AS at FROM webhook_deliveries WHERE webhook_id = $1 AND (body::jsonb->'data'->>'created_at')::timestamptz > $2`,
      [setup.webhookId, new Date(brokerFault.downAt)],
      brokerFault.upAt,
    );
    brokerFault.deliveries_received_again_s = resumeSeconds(receiver.deliveries, brokerFault.downAt, brokerFault.upAt);
    brokerFault.next_fault_began_s = dbFault ? round((dbFault.startAt - brokerFault.upAt) / 1000) : null;
    // The first of those messages: how long its delivery waited in the queue, and how many were
    // waiting before it when the broker came back (a backlog it was sent after, oldest first).
    const { queued_again_ms: queuedAgain } = await one(
      monitor,
      `SELECT (extract(epoch FROM min(created_at)) * 1000)::float8 AS queued_again_ms FROM webhook_deliveries
       WHERE webhook_id = $1 AND (body::jsonb->'data'->>'created_at')::timestamptz > $2`,
      [setup.webhookId, new Date(brokerFault.downAt)],
    );
    // Any delivery queued after the broker answered (its event waited in the outbox or the broker),
    // whatever message it is about: when the flow through the broker reached the receiver again,
    // the events stored while it was stopping included.
    const queuedAfterUp = new Set(
      (
        await monitor.query(`SELECT id::text FROM webhook_deliveries WHERE webhook_id = $1 AND created_at > $2`, [setup.webhookId, new Date(brokerFault.upAt)])
      ).rows.map((row) => row.id),
    );
    const firstAfterUp = receiver.deliveries
      .filter((d) => d.at > brokerFault.upAt && queuedAfterUp.has(d.webhookId))
      .reduce((min, d) => Math.min(min, d.at), Infinity);
    brokerFault.any_delivery_received_again_s = firstAfterUp === Infinity ? null : round((firstAfterUp - brokerFault.upAt) / 1000);
    brokerFault.deliveries_waiting_at_broker_up = queues.at(brokerFault.upAt)?.waiting ?? null;
    brokerFault.deliveries_waiting_when_queued_again = queuedAgain ? (queues.at(queuedAgain)?.waiting ?? null) : null;
    brokerFault.first_delivery_waited_in_queue_s =
      brokerFault.deliveries_received_again_s !== null && brokerFault.deliveries_queued_again_s !== null
        ? round(brokerFault.deliveries_received_again_s - brokerFault.deliveries_queued_again_s)
        : null;
  }
  if (dbFault) {
    const acks = loads.flatMap((l) => l.messages.map((m) => m.acked).filter((a) => a !== null && a > dbFault.upAt));
    dbFault.first_acknowledgement_after_start_s = acks.length ? round((Math.min(...acks) - dbFault.upAt) / 1000) : null;
    dbFault.deliveries_queued_again_s = await firstAfter(
      `SELECT min(created_at) AS at FROM webhook_deliveries WHERE webhook_id = $1 AND created_at > $2`,
      [setup.webhookId, new Date(dbFault.upAt)],
      dbFault.upAt,
    );
    dbFault.deliveries_received_again_s = round(
      (receiver.deliveries.filter((d) => d.at > dbFault.upAt).reduce((min, d) => Math.min(min, d.at), Infinity) - dbFault.upAt) / 1000,
    );
  }
  for (const fault of faults) for (const key of ['startAt', 'downAt', 'upAt']) delete fault[key];

  // Acknowledgements, failed attempts and deliveries per 5 s of the run, from the load's start.
  const bucket = (ms) => Math.floor((ms - loadStart) / 5000);
  const buckets = bucket(Date.now()) + 1;
  const timeline = { bucket_s: 5, acknowledged: Array(buckets).fill(0), failed_requests: Array(buckets).fill(0), deliveries: Array(buckets).fill(0) };
  for (const load of loads) {
    for (const m of load.messages) if (m.acked !== null) timeline.acknowledged[bucket(m.acked)]++;
    for (const [ms] of load.failures) timeline.failed_requests[bucket(loadStart + ms)]++;
  }
  for (const d of receiver.deliveries) if (d.at >= loadStart) timeline.deliveries[bucket(d.at)]++;
  // Per 5 s: the most deliveries waiting (queued, not yet sent) and events not yet published seen
  // in it, and the median from a message's storing to its delivery's receipt, by arrival.
  const byBucket = (rows, value) => {
    const out = Array(buckets).fill(null);
    for (const row of rows) {
      const b = bucket(row.at);
      if (b >= 0 && b < buckets) out[b] = Math.max(out[b] ?? 0, value(row));
    }
    return out;
  };
  timeline.deliveries_waiting = byBucket(queues.samples, (q) => q.waiting);
  timeline.deliveries_in_flight = byBucket(queues.samples, (q) => q.inFlight);
  timeline.events_unpublished = byBucket(queues.samples, (q) => q.unpublished);
  const arrivals = Array.from({ length: buckets }, () => []);
  for (const d of receiver.deliveries) if (d.at >= loadStart && d.createdAt !== null) arrivals[bucket(d.at)]?.push(d.at - d.createdAt);
  timeline.delivery_latency_p50_ms = arrivals.map((l) =>
    l.length
      ? percentile(
          l.sort((a, b) => a - b),
          0.5,
        )
      : null,
  );
  if (process.env.FAULTS_KEEP === '1') {
    writeFileSync(
      join(state.dir, 'raw.json'),
      JSON.stringify({
        loadStart,
        deliveries: receiver.deliveries,
        graph: graph.calls,
        failures: Object.fromEntries(loads.map((l) => [l.name, l.failures])),
        kills,
      }),
    );
  }

  // From the message's storing to the first receipt of its delivery (repeats left out).
  const seen = new Set();
  const latencies = receiver.deliveries
    .filter((d) => d.createdAt !== null && !seen.has(d.webhookId) && seen.add(d.webhookId))
    .map((d) => d.at - d.createdAt)
    .sort((a, b) => a - b);
  const sum = (key) => Object.values(perChannel).reduce((total, c) => total + c[key], 0);
  const jobs = jobFigures(graph, kills);
  const serviceErrors = {};
  for (const name of ['api-a', 'api-b', 'worker-a', 'worker-b', 'postgres']) {
    const problems = logProblems(join(logs, `${name}.log`));
    if (Object.keys(problems).length) serviceErrors[name] = problems;
  }
  let git = null;
  try {
    git = {
      head: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
      uncommitted_service_files: execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: root, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean).length,
    };
  } catch {
    // not a git checkout
  }

  const summary = {
    scenario: 'fault injection: 2 apis + 2 workers on one PostgreSQL and one Kafka broker (npm run faults)',
    date: new Date().toISOString(),
    git,
    machine: {
      cpus: cpus().length,
      load_average_at_start: loadAverageAtStart,
      load_average_at_end: loadavg().map((l) => round(l)),
      // From the load's start to the drain's end; other_work is what the machine ran besides this run.
      cpu,
    },
    settings,
    sent: sum('sent'),
    acknowledged: sum('acknowledged'),
    stored: sum('stored'),
    stored_twice: sum('stored_twice'),
    lost: sum('lost'),
    unacknowledged: sum('unacknowledged'),
    stored_not_acknowledged: sum('stored_not_acknowledged'),
    retries: sum('retries'),
    delivered: sum('delivered'),
    delivered_duplicates: sum('delivered_duplicates'),
    messages_with_several_webhook_ids: sum('messages_with_several_webhook_ids'),
    events_without_delivery: sum('events_without_delivery'),
    broker_resume_seconds: brokerFault?.deliveries_queued_again_s ?? null,
    broker_resume_seconds_at_receiver: brokerFault?.deliveries_received_again_s ?? null,
    jobs_running_at_worker_kill: jobs.jobs_running_at_kill,
    jobs_run_twice: jobs.jobs_run_twice_after_kill,
    profile_lookups_made_twice: jobs.lookups_made_twice_after_kill + jobs.lookups_made_twice_other,
    drained: status.done,
    timings: {
      startup_s: round(startupSeconds),
      load_s: round((loadEnd - loadStart) / 1000),
      drain_s: round(drainSeconds),
      total_s: round((Date.now() - t0) / 1000),
      delivery_latency_ms: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? null },
    },
    faults,
    channels: perChannel,
    webhook_deliveries: {
      by_status: Object.fromEntries(deliveryRows.map((r) => [r.status, r.n])),
      attempts: attemptRows.attempts,
      failed_attempts: attemptRows.failed,
    },
    outbox_message_received: outboxEvents,
    profile_jobs: {
      ...jobs,
      left_by_state: Object.fromEntries(jobRows.map((r) => [r.state, r.n])),
      left_running: {
        held_by_killed_worker: leftRunning.filter((r) => kills.some((k) => r.locked_by?.includes(`:${k.pid}:`))).length,
        held_by_live_worker: leftRunning.filter((r) => !kills.some((k) => r.locked_by?.includes(`:${k.pid}:`))).length,
        lease_left_s: leftRunning.map((r) => r.lease_left_s),
        last_errors: [...new Set(leftRunning.map((r) => r.last_error).filter(Boolean))].slice(0, 5),
      },
      contacts: named.contacts,
      contacts_named: named.named,
    },
    timeline,
    service_errors: serviceErrors,
  };

  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (process.env.FAULTS_RESULT !== 'none') {
    const dir = join(root, 'bench', 'results');
    let file = process.env.FAULTS_RESULT || join(dir, `faults-${summary.date.slice(0, 10)}.json`);
    for (let i = 2; !process.env.FAULTS_RESULT && existsSync(file); i++) file = join(dir, `faults-${summary.date.slice(0, 10)}-${i}.json`);
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
    log(`wrote ${file}`);
  }
  await cleanup(true);
  const bad = summary.lost > 0 || summary.stored_twice > 0;
  if (bad) log(`FAILED: ${summary.lost} acknowledged messages lost, ${summary.stored_twice} stored twice`);
  return bad ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    log(`run failed: ${error.stack ?? error.message}`);
    if (state.dir) {
      const logs = join(state.dir, 'logs');
      log(`process logs are in ${logs}${process.env.FAULTS_KEEP === '1' ? '' : ' (deleted on exit; FAULTS_KEEP=1 keeps them)'}`);
    }
    await cleanup(false).catch(() => undefined);
    process.exit(2);
  },
);
