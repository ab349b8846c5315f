// node bench/jobs-runner.mjs: jobs claimed and completed per second by the platform's job runner,
// with 1 and 2 worker processes (each its own pool, as replicas), and a check that no job ran twice.
// The jobs do nothing: what is measured is the runner (claim, run, delete). Builds dist/out when
// stale; starts an embedded PostgreSQL unless DATABASE_URL is set. Writes bench/results/<BENCH_NAME>.json.
import { execFileSync, fork } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuWindow } from './cpu-usage.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const platform = () => require(join(root, 'dist/out/libs/platform/src/index.js'));
const JOB = 'bench.noop';
const jobCount = Number(process.env.BENCH_JOBS ?? 20_000);
const name = process.env.BENCH_NAME ?? 'jobs-runner';
// Worker settings measured: the defaults, the small pool operations.md advises for a worker on a
// shared host, and more jobs at once (a round claims up to JOBS_CONCURRENCY minus those running).
const setups = [
  { pool: 10, concurrency: 4 },
  { pool: 2, concurrency: 4 },
  { pool: 2, concurrency: 32 },
];

// A worker process: a runner with the bench job; reports the ids it ran when told to stop.
async function child() {
  const { createDataSource, Database, JobRunner, defineJob } = platform();
  const dataSource = createDataSource({ url: process.env.BENCH_DATABASE_URL }, [], Number(process.env.BENCH_POOL), undefined, 'engage-bench-worker');
  await dataSource.initialize();
  const ran = [];
  const job = defineJob({ name: JOB, handler: { handle: async (_payload, context) => void ran.push(Number(context.id)) } });
  const runner = new JobRunner(new Database(dataSource), { jobs: [job], schedules: [], concurrency: Number(process.env.BENCH_CONCURRENCY), pollMs: 50 });
  // The parent learns progress from here, not by counting rows (a count(*) every few ms would cost
  // the database more than the runner does).
  const progress = setInterval(() => process.send({ progress: ran.length }), 10);
  process.on('message', async (message) => {
    if (message === 'go') await runner.start();
    if (message === 'stop') {
      clearInterval(progress);
      await runner.stop();
      await dataSource.destroy();
      process.send({ ran }, () => process.exit(0));
    }
  });
  process.send('ready');
}

const perJob = (cpuSeconds = 0) => Number(((cpuSeconds * 1000) / jobCount).toFixed(3));
const ready = (worker) => new Promise((resolve) => worker.once('message', resolve));
// Resolves with the first message of the worker that is not a progress report.
const report = (worker) =>
  new Promise((resolve) => {
    const listener = (message) => {
      if (message.progress !== undefined) return;
      worker.off('message', listener);
      resolve(message);
    };
    worker.on('message', listener);
  });

async function measure(databaseUrl, client, workers, setup) {
  await client.query(`DELETE FROM jobs`);
  await client.query(`INSERT INTO jobs (name, payload, max_attempts) SELECT $1, jsonb_build_object('n', n), 1 FROM generate_series(1, $2) AS n`, [
    JOB,
    jobCount,
  ]);
  await client.query('ANALYZE jobs');
  const env = { ...process.env, BENCH_CHILD: '1', BENCH_DATABASE_URL: databaseUrl, BENCH_POOL: String(setup.pool) };
  env.BENCH_CONCURRENCY = String(setup.concurrency);
  const children = Array.from({ length: workers }, () => fork(fileURLToPath(import.meta.url), [], { env }));
  await Promise.all(children.map(ready));
  const progress = children.map(() => 0);
  const allRan = new Promise((resolve) =>
    children.forEach((worker, i) =>
      worker.on('message', (message) => {
        if (message.progress === undefined) return;
        progress[i] = message.progress;
        if (progress.reduce((a, b) => a + b, 0) >= jobCount) resolve();
      }),
    ),
  );
  const started = process.hrtime.bigint();
  const window = cpuWindow();
  for (const worker of children) worker.send('go');
  await allRan;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // CPU time is steadier than throughput on a machine shared with other work.
  const cpu = window().cpu_seconds;
  const reports = await Promise.all(children.map((worker) => (worker.send('stop'), report(worker))));
  const ran = reports.flatMap((r) => r.ran);
  // Every job ran and was completed (deleted): stop() records the last ones.
  const { rows } = await client.query(`SELECT count(*)::int AS n FROM jobs`);
  const result = {
    workers,
    pool_per_worker: setup.pool,
    concurrency_per_worker: setup.concurrency,
    jobs: jobCount,
    seconds: Number(seconds.toFixed(3)),
    jobs_per_second: Math.round(jobCount / seconds),
    runs: ran.length,
    ran_twice: ran.length - new Set(ran).size,
    per_worker: reports.map((r) => r.ran.length),
    left_in_table: rows[0].n,
    cpu_seconds: cpu,
    cpu_ms_per_job: { postgres: perJob(cpu.postgres), workers: perJob(cpu['bench peers']) },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}

async function main() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const { loadConfig, startPlatform } = platform();
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-bench-jobs-'));
  // PostgreSQL started by root runs as another user, who must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  const given = process.env.DATABASE_URL;
  const runtime = await startPlatform(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(given ? { DATABASE_URL: given } : {}) }), { role: 'worker' });
  const embedded = runtime.embedded;
  const databaseUrl = given ?? `postgresql://${embedded.user}@localhost:${embedded.port}/${embedded.database}?host=${encodeURIComponent(embedded.host)}`;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const results = [];
  try {
    for (const setup of setups) for (const workers of [1, 2]) results.push(await measure(databaseUrl, client, workers, setup));
  } finally {
    await client.end();
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const file = join(root, 'bench', 'results', `${name}.json`);
  const record = { name, date: new Date().toISOString(), node: process.version, cpus: cpus().length, database: given ? 'DATABASE_URL' : 'embedded' };
  Object.assign(record, { job: 'a no-op handler', results });
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\n`);
}

(process.env.BENCH_CHILD ? child() : main()).catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
