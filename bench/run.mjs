// npm run bench: builds and starts the service, starts the bare baseline against the same
// database, and measures each scenario with autocannon from this (separate) process.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { scenarios } from './scenarios.mjs';
import { crmScenarios, measureCompanyImport, measureContactImport, residentMiB, seedCrm } from './crm-scenarios.mjs';
import { BENCH_META_SECRET, measureInbound, messagingScenarios, setProviderKey, startWorker } from './messaging-scenarios.mjs';
import { dataApiScenarios, seedDataApi } from './data-api-scenarios.mjs';
import { measureWebhooks } from './webhook-scenarios.mjs';
import { BILLING_SECRET, billingScenarios, seedBilling } from './billing-scenarios.mjs';
import { FAIRNESS, measureFairness } from './fairness-scenario.mjs';
import { CALL_UPLOADS, measureCallUploads, seedSuiteId } from './calls-scenario.mjs';
import { cpuWindow } from './cpu-usage.mjs';
import { measureOutboundQueue } from './outbound-queue-scenario.mjs';
import { AUTOMATION_BOT, AUTOMATION_RULES, measureAutomationRules, measureBotAnswers } from './automation-scenarios.mjs';
import { BROADCAST, DUE_STEPS, measureBroadcast, measureDueSteps } from './campaigns-scenarios.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const name = process.env.BENCH_NAME ?? `bench-${new Date().toISOString().slice(0, 10)}`;
// One scenario (or a few) alone: BENCH_ONLY=<part of its name> or `npm run bench -- --only <part>`;
// several parts separated by commas select the scenarios matching any of them.
const onlyFlag = process.argv.indexOf('--only');
const only = (onlyFlag >= 0 ? process.argv[onlyFlag + 1] : process.env.BENCH_ONLY)?.toLowerCase().split(',');
const selected = (scenarioName) => !only || only.some((part) => scenarioName.toLowerCase().includes(part.trim()));
const INBOUND = 'inbound acknowledgement at 1,000 req/s';
const META_INBOUND = 'Meta webhook acknowledgement at 1,000 req/s';
const IMPORT = 'CSV import of 100,000 contacts';
const COMPANY_IMPORT = 'CSV import of 20,000 companies';
const WEBHOOKS = 'webhook deliveries';
const QUEUE = 'outbound queue drain';

function startProcess(command, args, env) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" after 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, url: match[1] });
    }, 50);
  });
}

// CPU microseconds per completed request, by process group, over one measured run: steadier than
// requests per second on a shared machine (steal and other work are recorded beside it).
async function measureCpu(base, target, state, server) {
  const window = cpuWindow();
  const result = await measure(base, target, state);
  const cpu = window();
  const per = (seconds) => Math.round(((seconds ?? 0) * 1e6) / Math.max(1, result.requests.total));
  result.cpu = {
    us_per_request: { server: per(cpu.cpu_seconds[server]), postgres: per(cpu.cpu_seconds.postgres), load_generator: per(cpu.cpu_seconds['load generator']) },
    steal_cpu_seconds: cpu.steal_cpu_seconds,
    other_work_cpu_seconds: cpu.other_work_cpu_seconds,
  };
  return result;
}

function measure(base, target, state) {
  const body = target.body ? JSON.stringify(target.body(state)) : undefined;
  const headers = { ...(body || target.setupRequest ? { 'content-type': 'application/json' } : {}), ...(target.headers ? target.headers(state) : {}) };
  return new Promise((resolve, reject) => {
    // setupRequest(state) gives a per-request rewrite (e.g. a different recipient on each send).
    const requests = target.setupRequest ? [{ setupRequest: target.setupRequest(state) }] : undefined;
    autocannon(
      { url: `${base}${target.path}`, method: target.method ?? 'GET', body, headers, requests, connections, duration: seconds, pipelining: 1 },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

// autocannon ends a run by closing its connections; the requests it leaves behind still run (and
// hold their organization's slots) on the server. The next run waits for them, or its first
// requests would find the single bench organization's 4 running + 8 waiting taken and get 429.
async function drained(base) {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const text = await (await fetch(`${base}/metrics`)).text();
    const inFlight = [...text.matchAll(/^org_gate_requests\{state="(?:running|waiting)"\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    if (inFlight === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${base}: gated requests still in flight after 60 s`);
}

// 10,000 contacts in the demo organization, each with a unique phone (contacts and contact_phones).
async function seedContacts(databaseUrl, organizationId, count) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `WITH made AS (
         INSERT INTO contacts (organization_id, first_name, last_name, phones, created_at)
         SELECT $1, 'Contact ' || n, 'Seed', ARRAY['+2010' || lpad(n::text, 8, '0')], now() - make_interval(secs => n)
         FROM generate_series(1, $2) AS n RETURNING id, organization_id, phones[1] AS phone)
       INSERT INTO contact_phones (organization_id, phone, contact_id) SELECT organization_id, phone, id FROM made`,
      [organizationId, count],
    );
    // Vacuumed as well: autovacuum setting the visibility map in the middle of one side's run (the
    // page count is an index-only scan) would favour the side measured after it.
    await client.query('VACUUM (ANALYZE) contacts, contact_phones');
  } finally {
    await client.end();
  }
}

const stopped = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));

async function main() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'engage-bench-'));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, 'data');
  // Login limits are raised so the benchmark measures sign-ins, not 429s.
  const jwtSecret = randomBytes(32).toString('base64url');
  // The messaging scenarios' delivery provider, on loopback in a process of its own.
  const provider = await startProcess(process.execPath, [join(root, 'bench', 'loopback-provider.mjs')], {});
  const env = {
    NOTIFY_URL: provider.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_POOL_SIZE: '10',
    JWT_SECRET: jwtSecret,
    LOGIN_LIMIT_PER_EMAIL: '1000000',
    LOGIN_LIMIT_PER_IP: '1000000',
    BILLING_WEBHOOK_SECRET: BILLING_SECRET,
    META_APP_SECRET: BENCH_META_SECRET,
    META_VERIFY_TOKEN: 'bench-verify-token',
    // New Messenger contacts' profiles are looked up there (never at Meta's).
    META_GRAPH_URL: `${provider.url}/v23.0`,
  };
  // With the young-generation size `npm run start:api` gives it (docs/operations.md).
  const ours = await startProcess(process.execPath, ['--max-semi-space-size=8', join(root, 'dist', 'apps', 'api', 'main.js')], env);
  const databaseUrl = process.env.DATABASE_URL ?? `postgresql://postgres@localhost:5432/engage?host=${encodeURIComponent(join(dataDir, 'pg'))}`;
  const bare = await startProcess(process.execPath, [join(root, 'bench', 'bare-server.mjs')], {
    BENCH_DATABASE_URL: databaseUrl,
    BENCH_POOL_SIZE: '10',
    BENCH_JWT_SECRET: jwtSecret,
    BENCH_NOTIFY_URL: provider.url,
    BENCH_BILLING_SECRET: BILLING_SECRET,
  });
  const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
  const credentials = { email: demo.owner_email, password: demo.owner_password };
  const login = await fetch(`${ours.url}/functions/v1/mobile-api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const state = { credentials, accessToken: (await login.json()).access_token, organizationId: demo.organization_id };
  const all = [...scenarios, ...crmScenarios, ...messagingScenarios, ...billingScenarios].filter((scenario) => selected(scenario.name));
  await seedContacts(databaseUrl, demo.organization_id, 10_000);
  if (all.some((scenario) => crmScenarios.includes(scenario)) || selected(COMPANY_IMPORT)) await seedCrm(databaseUrl, demo.organization_id, ours.url, state);
  setProviderKey(root, env, databaseUrl, demo.organization_id);
  if (all.some((scenario) => billingScenarios.includes(scenario))) await seedBilling(databaseUrl, demo.owner_email, state);
  const rows = [];
  let contactImport = null;
  let companyImport = null;
  let inbound = null;
  let metaInbound = null;
  let worker;
  const compare = async (scenario) => {
    await measure(ours.url, scenario.ours, state); // warm-up, not recorded
    await drained(ours.url);
    const a = await measureCpu(ours.url, scenario.ours, state, 'api');
    await drained(ours.url);
    await measure(bare.url, scenario.bare, state);
    const b = await measureCpu(bare.url, scenario.bare, state, 'bare');
    const errors = a.errors + a.non2xx + b.errors + b.non2xx;
    // Errors per side, with the statuses that were not 2xx, so a failing side can be told apart.
    const side = (r) => ({
      requests_per_second: r.requests.average,
      p50_ms: r.latency.p50,
      p99_ms: r.latency.p99,
      errors: r.errors + r.non2xx,
      statuses: r.statusCodeStats,
      cpu: r.cpu,
    });
    rows.push({
      scenario: scenario.name,
      ours: side(a),
      bare: side(b),
      ratio: Number((a.requests.average / b.requests.average).toFixed(3)),
      errors,
      // Resident memory of each server after the scenario, so growth can be pinned to one.
      server_rss_mib: { ours: residentMiB(ours.child.pid), bare: residentMiB(bare.child.pid) },
    });
  };
  let webhooks = null;
  let outboundQueue = null;
  let fairness = null;
  let callUploads = null;
  let automationRules = null;
  let botAnswers = null;
  const campaigns = {};
  // The machine's load average (1, 5, 15 minutes) at the start and the end: other work on a shared
  // machine moves every figure.
  const loadAverage = { start: loadavg().map((value) => Number(value.toFixed(2))) };
  try {
    for (const scenario of all) await compare(scenario);
    // After the scenarios above: these top the organization up to 100,000 contacts.
    const dataApi = dataApiScenarios.filter((scenario) => selected(scenario.name));
    if (dataApi.length > 0 || selected(FAIRNESS)) await seedDataApi(databaseUrl, demo.organization_id, demo.owner_email);
    for (const scenario of dataApi) await compare(scenario);
    // Before any worker runs: the queue is filled first, then drained by a worker of its own.
    if (selected(QUEUE)) {
      // The queue's worker with a pool for its concurrent sends (BENCH_QUEUE_WORKER_POOL_SIZE, default 10).
      const workerPool = process.env.BENCH_WORKER_POOL_SIZE;
      process.env.BENCH_WORKER_POOL_SIZE = process.env.BENCH_QUEUE_WORKER_POOL_SIZE ?? '10';
      let queueWorker;
      try {
        outboundQueue = [];
        // Distinct texts (one provider call each), then one broadcast text per account (up to 10 receivers a call).
        for (const variant of ['distinct', 'broadcast']) {
          outboundQueue.push(
            await measureOutboundQueue({
              base: ours.url,
              state,
              databaseUrl,
              variant,
              startWorker: async () => (queueWorker = await startWorker(root, env, databaseUrl)),
            }),
          );
          queueWorker.kill('SIGTERM');
          await stopped(queueWorker);
          queueWorker = undefined;
        }
      } finally {
        if (workerPool === undefined) delete process.env.BENCH_WORKER_POOL_SIZE;
        else process.env.BENCH_WORKER_POOL_SIZE = workerPool;
        if (queueWorker) {
          queueWorker.kill('SIGTERM');
          await stopped(queueWorker);
        }
      }
    }
    // Each with a worker of its own, stopped before the next starts.
    if (selected(AUTOMATION_RULES)) {
      automationRules = await measureAutomationRules({ base: ours.url, state, databaseUrl, startWorker: () => startWorker(root, env, databaseUrl) });
    }
    if (selected(AUTOMATION_BOT)) {
      botAnswers = await measureBotAnswers({
        root,
        base: ours.url,
        state,
        databaseUrl,
        startWorker: (notifyUrl) => startWorker(root, { ...env, NOTIFY_URL: notifyUrl }, databaseUrl),
      });
    }
    // Each with a worker of its own (the broadcast), or none (the due-step query).
    if (selected(BROADCAST))
      campaigns.broadcast = await measureBroadcast({ base: ours.url, state, databaseUrl, startWorker: () => startWorker(root, env, databaseUrl) });
    if (selected(DUE_STEPS)) campaigns.due_steps = await measureDueSteps({ root, base: ours.url, state, databaseUrl });
    if (selected(INBOUND) || selected(META_INBOUND) || selected(FAIRNESS)) worker = await startWorker(root, env, databaseUrl);
    if (selected(FAIRNESS)) fairness = await measureFairness({ root, env, databaseUrl, base: ours.url, state, seconds, drained });
    if (selected(INBOUND)) {
      inbound = await measureInbound(ours.url, state, databaseUrl, { rate: 1000, bareUrl: bare.url });
    }
    if (selected(META_INBOUND)) metaInbound = await measureInbound(ours.url, state, databaseUrl, { rate: 1000, meta: true, bareUrl: bare.url });
    // Into the 20,000 seeded companies (after the duplicates scenario, which reads them).
    if (selected(COMPANY_IMPORT)) companyImport = await measureCompanyImport(ours.url, state, ours.child.pid);
    // Last: it adds 100,000 contacts to the organization the scenarios above read.
    if (selected(IMPORT)) contactImport = await measureContactImport(ours.url, state, ours.child.pid);
    if (selected(WEBHOOKS)) webhooks = await measureWebhooks({ root, dir, startProcess, stopped });
    if (selected(CALL_UPLOADS)) {
      await seedSuiteId(databaseUrl, demo.organization_id);
      callUploads = await measureCallUploads(ours.url, state, ours.child.pid);
    }
  } finally {
    const children = [ours.child, bare.child, provider.child, ...(worker ? [worker] : [])];
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map(stopped));
    rmSync(dir, { recursive: true, force: true });
  }
  const pad = (value, width) => String(value).padEnd(width);
  process.stdout.write(
    `\n${pad('scenario', 42)}${pad('ours req/s', 12)}${pad('p50', 6)}${pad('p99', 6)}` + `${pad('bare req/s', 12)}${pad('p50', 6)}${pad('p99', 6)}ratio\n`,
  );
  for (const row of rows) {
    process.stdout.write(
      `${pad(row.scenario, 42)}${pad(Math.round(row.ours.requests_per_second), 12)}${pad(row.ours.p50_ms, 6)}${pad(row.ours.p99_ms, 6)}` +
        `${pad(Math.round(row.bare.requests_per_second), 12)}${pad(row.bare.p50_ms, 6)}${pad(row.bare.p99_ms, 6)}` +
        `${row.ratio}${row.errors ? `  (${row.errors} errors)` : ''}\n`,
    );
    const cpu = (side) => `${side.cpu.us_per_request.server} + ${side.cpu.us_per_request.postgres} database`;
    process.stdout.write(`  CPU µs per request: ours ${cpu(row.ours)}, bare ${cpu(row.bare)}\n`);
  }
  for (const load of [inbound, metaInbound].filter(Boolean)) {
    process.stdout.write(
      `\n${load.scenario}: ${load.acknowledged} acknowledged of ${load.sent} sent, p50 ${load.p50_ms} ms, p99 ${load.p99_ms} ms, max ${load.max_ms} ms, ` +
        `lost ${load.lost}, all processed ${load.all_processed_seconds_after_load ?? 'NOT'} s after the load\n` +
        (load.bare
          ? `  bare handler, same SQL and worker: p50 ${load.bare.p50_ms} ms, p99 ${load.bare.p99_ms} ms, ` +
            `max ${load.bare.max_ms} ms, lost ${load.bare.lost}\n`
          : ''),
    );
  }
  for (const result of [companyImport, contactImport].filter(Boolean)) {
    process.stdout.write(
      `\n${result.scenario}: ${result.rows_per_second} rows/s, ` + `server RSS ${result.server_rss_before_mib} -> peak ${result.server_rss_peak_mib} MiB\n`,
    );
  }
  if (webhooks) process.stdout.write(`\n${JSON.stringify(webhooks, null, 2)}\n`);
  if (outboundQueue) process.stdout.write(`\n${JSON.stringify(outboundQueue, null, 2)}\n`);
  if (fairness) process.stdout.write(`\n${JSON.stringify(fairness, null, 2)}\n`);
  for (const result of [automationRules, botAnswers, campaigns.broadcast, campaigns.due_steps].filter(Boolean)) {
    process.stdout.write(`\n${JSON.stringify(result, null, 2)}\n`);
  }
  loadAverage.end = loadavg().map((value) => Number(value.toFixed(2)));
  if (callUploads) {
    const u = callUploads;
    process.stdout.write(
      `\n${u.scenario}: ${u.stored}/${u.uploads} stored in ${u.seconds} s, ${u.megabytes_per_second} MB/s, ` +
        `server RSS ${u.server_rss_before_mib} -> peak ${u.server_rss_peak_mib} MiB\n`,
    );
  }
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  const file = join(root, 'bench', 'results', `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        name,
        // BENCH_NOTE: what was run and under what conditions, in words.
        ...(process.env.BENCH_NOTE && { note: process.env.BENCH_NOTE }),
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        seconds,
        connections,
        database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded',
        results: rows,
        inbound,
        meta_inbound: metaInbound,
        contact_import: contactImport,
        company_import: companyImport,
        webhooks,
        outbound_queue: outboundQueue,
        fairness,
        call_uploads: callUploads,
        automation_rules: automationRules,
        bot_answers: botAnswers,
        campaigns: Object.keys(campaigns).length > 0 ? campaigns : null,
        load_average: loadAverage,
      },
      null,
      2,
    ) + '\n',
  );
  process.stdout.write(`\nwrote ${file}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
