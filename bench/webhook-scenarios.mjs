// Webhook scenarios of `npm run bench`: deliveries per second to a loopback HTTPS receiver, and the
// p99 delivery latency of healthy endpoints while one endpoint never answers, compared with the same
// run without it. A service of its own (api + worker, its own data folder) is started, because the
// delivery worker only runs with --with-worker and loopback targets must be allow-listed.
// Deliveries are queued straight into webhook_deliveries (as the consumer would queue them), so the
// figures measure claim, sign, send and log, not the event relay. The worker picks rows inserted
// by another process up on its poll (every 500 ms), which bounds the latency floor.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { makeCert } from '../scripts/self-signed-cert.mjs';

const HEALTHY_FOR_THROUGHPUT = 8;
const THROUGHPUT_DELIVERIES = 20_000;
const HEALTHY_FOR_LATENCY = 4;
const LATENCY_SECONDS = 10;
const LATENCY_PER_TICK = 5; // per endpoint, every 100 ms: 50/s per endpoint

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

// An HTTPS receiver on 127.0.0.1: paths under /dead never answer; others answer 200 and record the
// arrival time and the `queued_at` and `run` the body carries.
async function startReceiver(cert) {
  const arrivals = [];
  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    if ((req.url ?? '').startsWith('/dead')) return;
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      try {
        const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        arrivals.push({ path: req.url, at, queuedAt: data.queued_at, run: data.run });
      } catch {
        arrivals.push({ path: req.url, at });
      }
      res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, arrivals, url: `https://127.0.0.1:${server.address().port}` };
}

const QUEUE = `
  INSERT INTO webhook_deliveries (organization_id, webhook_id, event, body)
  SELECT c.organization_id, c.id, 'contact.created',
         json_build_object('event', 'contact.created', 'timestamp', now(),
           'data', json_build_object('id', gen_random_uuid(), 'run', $3::text, 'queued_at', (extract(epoch FROM clock_timestamp()) * 1000)::bigint))::text
  FROM webhook_configurations c CROSS JOIN generate_series(1, $2::int)
  WHERE c.id = ANY($1::uuid[])`;

async function waitForArrivals(arrivals, run, count, limitMs) {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (arrivals.filter((a) => a.run === run).length >= count) return true;
    await sleep(20);
  }
  return false;
}

// Healthy endpoints get LATENCY_PER_TICK deliveries every 100 ms for LATENCY_SECONDS (and the dead
// one as many, when given); the latency of a delivery is its arrival minus its queueing.
async function latencyRun(client, receiver, healthy, dead, run) {
  const ticks = LATENCY_SECONDS * 10;
  for (let tick = 0; tick < ticks; tick++) {
    const started = Date.now();
    await client.query(QUEUE, [dead ? [...healthy, dead] : healthy, LATENCY_PER_TICK, run]);
    await sleep(Math.max(0, 100 - (Date.now() - started)));
  }
  const expected = ticks * LATENCY_PER_TICK * healthy.length;
  const complete = await waitForArrivals(receiver.arrivals, run, expected, 30_000);
  const latencies = receiver.arrivals.filter((a) => a.run === run).map((a) => a.at - a.queuedAt);
  return {
    deliveries: latencies.length,
    expected,
    complete,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    max_ms: latencies.length ? Math.max(...latencies) : null,
  };
}

export async function measureWebhooks({ root, dir, startProcess, stopped }) {
  const cert = makeCert(dir);
  const receiver = await startReceiver(cert);
  const dataDir = join(dir, 'webhooks-data');
  mkdirSync(dataDir, { recursive: true });
  const service = await startProcess(process.execPath, [join(root, 'dist', 'apps', 'api', 'main.js'), '--with-worker'], {
    PORT: '0',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_POOL_SIZE: '10',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    NODE_EXTRA_CA_CERTS: cert.certPath,
  });
  const databaseUrl = process.env.DATABASE_URL ?? `postgresql://postgres@localhost:5432/engage?host=${encodeURIComponent(join(dataDir, 'pg'))}`;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const login = await fetch(`${service.url}/functions/v1/mobile-api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.owner_email, password: demo.owner_password }),
    });
    const token = (await login.json()).access_token;
    const configure = async (path) => {
      const res = await fetch(`${service.url}/rest/v1/webhook_configurations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'return=representation' },
        body: JSON.stringify({ name: `bench ${path}`, url: `${receiver.url}${path}`, events: ['contact.created'] }),
      });
      if (res.status !== 201) throw new Error(`webhook configuration: ${res.status} ${await res.text()}`);
      return (await res.json())[0].id;
    };
    await client.connect();

    // 1. Throughput: 20,000 deliveries over 8 endpoints, queued at once.
    const many = [];
    for (let i = 0; i < HEALTHY_FOR_THROUGHPUT; i++) many.push(await configure(`/throughput-${i}`));
    const queuedAt = Date.now();
    await client.query(QUEUE, [many, THROUGHPUT_DELIVERIES / HEALTHY_FOR_THROUGHPUT, 'throughput']);
    const complete = await waitForArrivals(receiver.arrivals, 'throughput', THROUGHPUT_DELIVERIES, 180_000);
    const done = receiver.arrivals.filter((a) => a.run === 'throughput');
    const seconds = (Math.max(...done.map((a) => a.at)) - queuedAt) / 1000;
    const throughput = { deliveries: done.length, complete, seconds, deliveries_per_second: Math.round(done.length / seconds) };
    await client.query('UPDATE webhook_configurations SET is_active = false WHERE id = ANY($1::uuid[])', [many]);

    // 2. p99 of healthy endpoints without, then with, an endpoint that never answers.
    const healthy = [];
    for (let i = 0; i < HEALTHY_FOR_LATENCY; i++) healthy.push(await configure(`/healthy-${i}`));
    const dead = await configure('/dead');
    const baseline = await latencyRun(client, receiver, healthy, null, 'latency-baseline');
    const withDead = await latencyRun(client, receiver, healthy, dead, 'latency-with-dead');
    return {
      scenario: 'webhook deliveries to a loopback HTTPS receiver',
      throughput,
      latency_healthy_endpoints: { without_dead_endpoint: baseline, with_dead_endpoint: withDead },
    };
  } finally {
    await client.end().catch(() => undefined);
    service.child.kill('SIGTERM');
    await stopped(service.child);
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
}
