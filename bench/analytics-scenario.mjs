// The analytics bench (node bench/analytics-scenario.mjs; not part of `npm run bench`, its seed
// takes minutes): two organizations of 1,000,000 messages and 100,000 conversations each; every
// analytics endpoint and a widget read under 10 concurrent clients for BENCH_SECONDS (10) each,
// p50/p95/p99 and errors, then the plans (EXPLAIN ANALYZE, as the tenant role) of the reports'
// statements. Results: bench/results/analytics.json and analytics-plans.txt. The api runs with its
// worker, whose schedule rolls the messages up (docs/analytics.md, "Rollups"); the load starts once
// both organizations are rolled. ANALYTICS_ORGANIZATIONS=1 seeds one organization only (results
// then go to analytics-1-organization.json).
import { execFileSync, spawn } from 'node:child_process';
import { register } from 'node:module';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CONVERSATIONS, DEALS, MESSAGES_PER_CONVERSATION, seedOrganization } from './analytics-seed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const clients = Number(process.env.BENCH_CONNECTIONS ?? 10);
// BENCH_DATA_DIR keeps the seeded database for another run (seeded once); BENCH_ONLY runs only the
// scenarios whose name contains one of its comma-separated words, and writes no results files.
const keptDir = process.env.BENCH_DATA_DIR;
const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
const organizations = Number(process.env.ANALYTICS_ORGANIZATIONS ?? 2);
// Widget values are served again for ANALYTICS_WIDGET_CACHE_SECONDS (the api's setting, passed
// through; 15 by default): 0 measures a read that computes every value.
const widgetCache = process.env.ANALYTICS_WIDGET_CACHE_SECONDS ?? '15';
// The report's TypeScript imports its siblings without an extension: resolve them to .ts here.
register(
  `data:text/javascript,${encodeURIComponent(`export async function resolve(s, c, next) {
  try { return await next(s, c); } catch (e) { if (s.startsWith('.') && !/[.][cm]?[jt]s$/.test(s)) return next(s + '.ts', c); throw e; }
}`)}`,
);

function start(env) {
  const main = join(root, 'dist', 'apps', 'api', 'main.js');
  const child = spawn(process.execPath, ['--max-semi-space-size=8', main, '--with-worker'], { cwd: root, env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening after 60 s:\n${output}`)), 60_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ child, url: match[1] });
    }, 50);
  });
}

// `clients` loops, each sending the next request when the last answered, for `seconds`.
async function load(url, headers) {
  const latencies = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const began = performance.now();
        const res = await fetch(url, { headers }).catch(() => null);
        if (!res || res.status !== 200) errors++;
        await res?.arrayBuffer();
        latencies.push(performance.now() - began);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10;
  return { requests: latencies.length, per_second: Math.round(latencies.length / seconds), p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99), errors };
}

// As the tenant role; `covered` adds what the report reads from the rollups (rollup-coverage.ts).
async function explain(client, organizationId, sql, values, covered) {
  const { named } = await import('../libs/analytics/src/infrastructure/sql-params.ts');
  await client.query('BEGIN');
  try {
    await client.query(`SELECT set_config('role', 'app_tenant', true), set_config('app.org_id', $1, true)`, [organizationId]);
    const tx = { query: async (text, params) => (await client.query(text, params)).rows };
    const { text, params } = named(sql, covered ? { ...values, ...(await covered(tx)) } : values);
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
  }
}

// Seconds until the worker's schedule has rolled every organization up to the last half hour, and
// re-rolled the quarter hours the seed's first replies changed after an early run.
async function rolledUp(client, count) {
  const began = performance.now();
  for (;;) {
    const { rows } = await client.query(`
      SELECT count(*) FILTER (WHERE rolled_until >= now() - interval '30 minutes')::int AS n,
             (SELECT count(*) FROM messaging_message_fact_changes c JOIN analytics_rollup_state s USING (organization_id)
              LEFT JOIN analytics_message_rollups r USING (organization_id, bucket)
              WHERE c.bucket < s.rolled_until AND (r.bucket IS NULL OR NOT pg_visible_in_snapshot(c.changed_xid, r.rolled_in)))::int AS stale
      FROM analytics_rollup_state`);
    if (rows[0].n >= count && rows[0].stale === 0) return Math.round((performance.now() - began) / 1000);
    if (performance.now() - began > 10 * 60_000) throw new Error('the rollups did not catch up within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

async function main() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'engage-bench-'));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, 'data');
  // The organization's gate is widened to the 10 clients: the bench measures the reports, not fair sharing.
  const env = {
    PORT: '0',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_POOL_SIZE: '10',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    LOGIN_LIMIT_PER_EMAIL: '1000000',
    LOGIN_LIMIT_PER_IP: '1000000',
    ORG_MAX_CONCURRENT_REQUESTS: String(clients),
    ORG_MAX_QUEUED_REQUESTS: String(clients * 2),
    ORG_MAX_CONCURRENT_SLOW_REQUESTS: String(clients),
  };
  const api = await start(env);
  const client = new pg.Client({ connectionString: `postgresql://postgres@localhost:5432/engage?host=${encodeURIComponent(join(dataDir, 'pg'))}` });
  await client.connect();
  try {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const began = performance.now();
    const seeded = (await client.query(`SELECT 1 FROM organizations WHERE name = 'Second'`)).rows.length > 0;
    if (!seeded) {
      const second = (await client.query(`INSERT INTO organizations (name) VALUES ('Second') RETURNING id`)).rows[0].id;
      const owner = (await client.query('SELECT user_id FROM memberships WHERE organization_id = $1 LIMIT 1', [demo.organization_id])).rows[0].user_id;
      await seedOrganization(client, demo.organization_id, owner);
      if (organizations > 1) await seedOrganization(client, second, null);
    }
    await client.query('VACUUM ANALYZE');
    const seedSeconds = Math.round((performance.now() - began) / 1000);
    const rolledIn = await rolledUp(client, organizations);
    await client.query('VACUUM ANALYZE analytics_message_rollups');
    await client.query('CHECKPOINT');
    const login = await fetch(`${api.url}/functions/v1/mobile-api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.owner_email, password: demo.owner_password }),
    });
    const headers = { authorization: `Bearer ${(await login.json()).access_token}` };
    const targets = {
      'GET /rest/v1/analytics/metrics (30 days)': '/rest/v1/analytics/metrics',
      'GET /rest/v1/analytics/inbox (30 days)': '/rest/v1/analytics/inbox',
      'GET /rest/v1/analytics/deals (30 days)': '/rest/v1/analytics/deals',
      'GET /rest/v1/analytics/deals?group_by=day (30 days)': '/rest/v1/analytics/deals?group_by=day',
      'GET /rest/v1/analytics/deals as CSV (30 days)': '/rest/v1/analytics/deals#csv',
      'GET /rest/v1/analytics/metrics?group_by=day (30 days)': '/rest/v1/analytics/metrics?group_by=day',
      [`GET /rest/v1/dashboard_widgets (7 default widgets, values cached ${widgetCache} s)`]: '/rest/v1/dashboard_widgets',
    };
    const results = [];
    for (const [name, target] of Object.entries(targets)) {
      if (only && !only.some((word) => name.includes(word))) continue;
      // `#csv`: the same report with Accept: text/csv.
      const [path, csv] = target.split('#');
      const sent = csv ? { ...headers, accept: 'text/csv' } : headers;
      const warm = await fetch(`${api.url}${path}`, { headers: sent });
      if (warm.status !== 200) throw new Error(`${path}: ${warm.status} ${await warm.text()}`);
      await load(`${api.url}${path}`, sent);
      results.push({ scenario: name, ...(await load(`${api.url}${path}`, sent)) });
      console.log(JSON.stringify(results.at(-1)));
    }
    // The widget read without the response time and SLA widgets (hidden for the run), whose values
    // are the message reports' figures: what the other five cost.
    const five = `GET /rest/v1/dashboard_widgets?is_visible=true (5 widgets: response time and SLA hidden, values cached ${widgetCache} s)`;
    if (!only || only.some((word) => five.includes(word))) {
      const visible = (value) =>
        fetch(`${api.url}/rest/v1/dashboard_widgets?widget_type=in.(response_time,sla)`, {
          method: 'PATCH',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ is_visible: value }),
        });
      if ((await visible(false)).status >= 300) throw new Error('could not hide the response time and SLA widgets');
      await load(`${api.url}/rest/v1/dashboard_widgets?is_visible=true`, headers);
      results.push({ scenario: five, ...(await load(`${api.url}/rest/v1/dashboard_widgets?is_visible=true`, headers)) });
      console.log(JSON.stringify(results.at(-1)));
      await visible(true);
    }
    const { ROLLUP_INBOX, ROLLUP_METRICS, ROLLUP_METRICS_BY_DAY } = await import('../libs/analytics/src/infrastructure/report.sql.ts');
    const { coverage } = await import('../libs/analytics/src/application/rollup-coverage.ts');
    const { DEALS: DEALS_SQL, DEALS_BY_DAY } = await import('../libs/analytics/src/infrastructure/deals.sql.ts');
    const now = new Date();
    const [start, prev] = [new Date(now - 30 * 864e5), new Date(now - 60 * 864e5)];
    const day = (at) => at.toISOString().slice(0, 10);
    const values = { start, end: now, prev, target: '60 minutes', now, tz: 'UTC', first: day(start), last: day(now) };
    // Every hour counts (no business hours): unanswered messages are past the target an hour on.
    const covered = (bounds, days) => (tx) => coverage(tx, { bounds, due: new Date(now - 3600e3), targetMinutes: 60, schedule: null, days });
    const plans = [];
    for (const [name, sql, cover] of [
      ['metrics (rollups and live tail)', ROLLUP_METRICS, covered([prev, start, now])],
      ['metrics by day (rollups and live tail)', ROLLUP_METRICS_BY_DAY, covered([start, now], { tz: 'UTC', first: values.first, last: values.last })],
      ['inbox (rollups and live tail)', ROLLUP_INBOX, covered([start, now])],
      ['deals', DEALS_SQL],
      ['deals by day', DEALS_BY_DAY],
    ]) {
      if (only && !only.some((word) => name.includes(word))) continue;
      // Statements over response times come in two forms (response.sql.ts): the every-hour one here.
      const text = typeof sql === 'string' ? sql : sql.every;
      plans.push(`-- ${name}\n${await explain(client, demo.organization_id, text, values, cover)}\n`);
    }
    if (only) {
      console.log(plans.join('\n'));
      return;
    }
    const summary = {
      name: 'analytics',
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      seconds,
      clients,
      database: 'embedded',
      per_organization: { conversations: CONVERSATIONS, messages: CONVERSATIONS * MESSAGES_PER_CONVERSATION, deals: DEALS },
      organizations,
      seed_seconds: seedSeconds,
      rolled_up_seconds: rolledIn,
      load_average_after: loadavg().map((n) => Math.round(n * 10) / 10),
      results,
    };
    const file = organizations > 1 ? 'analytics.json' : 'analytics-1-organization.json';
    writeFileSync(join(root, 'bench', 'results', file), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(root, 'bench', 'results', 'analytics-plans.txt'), plans.join('\n'));
    console.log(plans.join('\n'));
  } finally {
    await client.end();
    api.child.kill('SIGTERM');
  }
}

await main();
