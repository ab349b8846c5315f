// node bench/reengagement-pass.mjs: one re-engagement scheduler pass over BENCH_CONVERSATIONS (default
// 100,000) open Messenger conversations of which BENCH_DUE (1,000) are due, on the composed api's own
// ReengagementScheduler (approval mode, so no sends), the drafts written by a loopback
// chat-completions peer. Prints the selection statement's plan (EXPLAIN ANALYZE) and seconds: the
// selection alone, and the passes until every due conversation has its draft (500 per pass).
// Builds dist/out when stale; starts an embedded PostgreSQL unless DATABASE_URL is set. Writes
// bench/results/<BENCH_NAME>.json only with BENCH_NAME set.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const total = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const dueCount = Number(process.env.BENCH_DUE ?? 1000);

// An OpenAI-compatible chat-completions peer answering at once.
function startAi() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const choices = [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi again! Is there anything else I can help with?' } }];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'bench', object: 'chat.completion', choices }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// One organization with re-engagement on, a Messenger page, and `total` conversations each with one
// customer message: `dueCount` of them 20 to 23 h old, the rest spread over the other hours of 30 days.
async function seed(client, now) {
  const [org] = (await client.query(`INSERT INTO organizations (name) VALUES ('Re-engagement bench') RETURNING id`)).rows;
  const [channel] = (
    await client.query(
      `INSERT INTO channel_accounts (organization_id, kind, name, external_account_id)
       VALUES ($1, 'messenger', 'Page', '990001') RETURNING id`,
      [org.id],
    )
  ).rows;
  await client.query(`INSERT INTO reengagement_settings (organization_id, enabled, approval_mode) VALUES ($1, true, true)`, [org.id]);
  await client.query(
    `INSERT INTO contacts (organization_id, first_name, last_name)
     SELECT $1, 'Customer', n::text FROM generate_series(1, $2) n`,
    [org.id, total],
  );
  // Due: 20 h + (n mod 3 h) old; the others: outside 12-24 h (0-12 h, or 1-30 days).
  await client.query(
    `INSERT INTO conversations (organization_id, contact_id, channel_account_id, status, last_message_at, last_customer_message_at, window_closes_at)
     SELECT $1, c.id, $2, 'OPEN', t, t, t + interval '24 hours'
     FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM contacts WHERE organization_id = $1) c,
     LATERAL (SELECT CASE WHEN c.n <= $4 THEN $3::timestamptz - interval '20 hours' - (c.n % 10800) * interval '1 second'
                          WHEN c.n % 3 = 0 THEN $3::timestamptz - (c.n % 43000) * interval '1 second'
                          ELSE $3::timestamptz - interval '25 hours' - (c.n % 2500000) * interval '1 second' END AS t) w`,
    [org.id, channel.id, now, dueCount],
  );
  await client.query(
    `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, created_at, origin)
     SELECT organization_id, id, contact_id, channel_account_id, 'INBOUND', 'DELIVERED', 'Is it still available?', last_customer_message_at, 'customer'
     FROM conversations WHERE organization_id = $1`,
    [org.id],
  );
  await client.query('ANALYZE');
  return org.id;
}

async function main() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const { loadConfig, startPlatform } = require(join(root, 'dist/out/libs/platform/src/index.js'));
  const { CONTEXT_MIGRATIONS, CONTEXTS } = require(join(root, 'dist/out/libs/composition/src/index.js'));
  const { createApiApp } = require(join(root, 'dist/out/apps/api/src/create-api-app.js'));
  const { ReengagementScheduler } = require(join(root, 'dist/out/libs/reengagement/src/index.js'));
  const ai = await startAi();
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-bench-reengagement-'));
  chmodSync(dataDir, 0o755);
  const given = process.env.DATABASE_URL;
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', AI_BASE_URL: `http://127.0.0.1:${ai.address().port}/v1`, ...(given ? { DATABASE_URL: given } : {}) };
  const runtime = await startPlatform(
    loadConfig(
      env,
      CONTEXTS.flatMap((c) => (c.settings ? [c.settings] : [])),
    ),
    { role: 'api', migrations: CONTEXT_MIGRATIONS },
  );
  const app = await createApiApp(runtime);
  const embedded = runtime.embedded;
  const url = given ?? `postgresql://${embedded.user}@localhost:${embedded.port}/${embedded.database}?host=${encodeURIComponent(embedded.host)}`;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const now = new Date();
    const seedStarted = Date.now();
    await seed(client, now);
    const seeded = (Date.now() - seedStarted) / 1000;
    const { DUE_CONVERSATIONS } = require(join(root, 'dist/out/libs/reengagement/src/infrastructure/reengagement.sql.js'));
    const plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${DUE_CONVERSATIONS}`, [now, 3, 500])).rows.map((r) => r['QUERY PLAN']);
    const selectStarted = process.hrtime.bigint();
    const selected = (await client.query(DUE_CONVERSATIONS, [now, 3, 500])).rowCount;
    const selectSeconds = Number(process.hrtime.bigint() - selectStarted) / 1e9;
    const scheduler = app.get(ReengagementScheduler);
    const passes = [];
    const started = process.hrtime.bigint();
    for (;;) {
      const passStarted = process.hrtime.bigint();
      const result = await scheduler.pass(now);
      passes.push({ ...result, seconds: Number((Number(process.hrtime.bigint() - passStarted) / 1e9).toFixed(3)) });
      if (result.due === 0) break;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { rows } = await client.query(`SELECT status, count(*)::int AS n FROM reengagement_nudges GROUP BY status`);
    // The same statement once the nudges exist (the next minute's pass: nothing due).
    await client.query('ANALYZE reengagement_nudges, reengagement_conversations');
    const planAfter = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${DUE_CONVERSATIONS}`, [now, 3, 500])).rows.map((r) => r['QUERY PLAN']);
    const result = {
      conversations: total,
      due: dueCount,
      seed_seconds: seeded,
      selection_rows: selected,
      selection_seconds: Number(selectSeconds.toFixed(4)),
      passes,
      all_passes_seconds: Number(seconds.toFixed(3)),
      nudges: Object.fromEntries(rows.map((r) => [r.status, r.n])),
      uses_index: plan.some((line) => line.includes('conversations_last_customer_message_idx')),
      plan,
      plan_after_nudges: planAfter,
    };
    const summary = JSON.stringify({ ...result, plan: undefined, plan_after_nudges: undefined }, null, 2);
    process.stdout.write(`${plan.join('\n')}\n\n${planAfter.join('\n')}\n\n${summary}\n`);
    if (process.env.BENCH_NAME) {
      const file = join(root, 'bench', 'results', `${process.env.BENCH_NAME}.json`);
      const record = { name: process.env.BENCH_NAME, date: new Date().toISOString(), node: process.version, cpus: cpus().length, ...result };
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
      process.stdout.write(`wrote ${file}\n`);
    }
  } finally {
    await client.end();
    await app.close();
    await runtime.close();
    ai.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
