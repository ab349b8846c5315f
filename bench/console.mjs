// npm run bench:console [-- --only inbox|webhook]: the console's figures of issue 35, in headless
// Chromium (playwright-core with the distribution's chromium, as the console's browser tests):
// - inbox: the Inbox of an organization with BENCH_CONVERSATIONS (10,000) open conversations,
//   seeded in SQL: the time to the first rows, the rows in the page, a scroll through the whole
//   list one screenful per frame (frames, long tasks over 50 ms by PerformanceObserver, the pages
//   asked for) and End pressed on the first row (until the last row is focused and loaded);
// - webhook: the time from posting an inbound chat-app message to its webhook to the message on
//   screen (a MutationObserver's timestamp in the page minus the time just before the post, one
//   clock), BENCH_MESSAGES (50) times from new customers (a new row in the list) and 50 times in the
//   open conversation (its log); p50, p95 and the largest.
// Starts the built service as `npm start` does (api and worker, a fresh embedded PostgreSQL) and
// writes bench/results/console-<date>.json (BENCH_NAME to name it otherwise).
/* global window, document, requestAnimationFrame, MutationObserver -- in the page's functions below */
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 50);
const name = process.env.BENCH_NAME ?? `console-${new Date().toISOString().slice(0, 10)}`;
const onlyFlag = process.argv.indexOf('--only');
const only = (onlyFlag >= 0 ? process.argv[onlyFlag + 1] : process.env.BENCH_ONLY)?.toLowerCase().split(',');
const selected = (part) => !only || only.some((wanted) => part.includes(wanted.trim()));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startApi(env) {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', 'api', 'main.js'), '--with-worker'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" after 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`the api exited with ${code}:\n${output}`)));
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

async function call(base, path, { token, body, headers } = {}) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// An organization on the Business plan (10,000 contacts fit; Starter allows 2,500) whose owner has
// finished onboarding, as the console's e2e/global-setup.ts makes one.
async function makeOrganization(base, env, secret) {
  const email = `owner-${randomBytes(4).toString('hex')}@bench.test`;
  const password = `Pw-${randomBytes(9).toString('base64url')}`;
  const created = execFileSync(
    process.execPath,
    [join(root, 'dist', 'apps', 'api', 'admin.js'), 'create-org', '--name', 'Console bench', '--owner-email', email, '--owner-password', password, '--json'],
    { cwd: root, env, encoding: 'utf8' },
  );
  const { organization_id: organizationId } = JSON.parse(created.trim().split('\n').pop());
  const event = JSON.stringify({ organization_id: organizationId, plan_id: 'business', storefront_store_id: `store-${organizationId}`, status: 'active' });
  await call(base, '/functions/v1/storefront-billing-webhook', {
    body: event,
    headers: { 'x-billing-signature': createHmac('sha256', secret).update(event).digest('hex') },
  });
  const session = await call(base, '/auth/v1/token?grant_type=password', { body: { email, password } });
  await call(base, '/functions/v1/onboarding/skip-channels', { token: session.access_token, body: {} });
  return { email, password, organizationId, token: session.access_token };
}

// `count` contacts, each with one open chat-app conversation and one customer message, a second
// apart (the newest first in the list), every tenth unread.
async function seedConversations(databaseUrl, organizationId, channelId, count) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `WITH made AS (
         INSERT INTO contacts (organization_id, first_name, last_name, phones)
         SELECT $1, 'Customer', lpad(n::text, 5, '0'), ARRAY['+2011' || lpad(n::text, 8, '0')] FROM generate_series(1, $3) n
         RETURNING id, last_name)
       INSERT INTO conversations (organization_id, contact_id, channel_account_id, status, last_message_at, last_customer_message_at, unread_count)
       SELECT $1, id, $2, 'OPEN', now() - make_interval(secs => last_name::int), now() - make_interval(secs => last_name::int),
              CASE WHEN last_name::int % 10 = 0 THEN 1 ELSE 0 END
       FROM made`,
      [organizationId, channelId, count],
    );
    await client.query(
      `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, created_at, origin)
       SELECT organization_id, id, contact_id, channel_account_id, 'INBOUND', 'DELIVERED', 'Is my order on its way?', last_message_at, 'customer'
       FROM conversations WHERE organization_id = $1`,
      [organizationId],
    );
    await client.query('VACUUM (ANALYZE) contacts, conversations, messages');
  } finally {
    await client.end();
  }
}

// In the page before its scripts: long tasks, the first conversation row, and watched texts.
function instrument() {
  const bench = { longTasks: [], firstRowsAt: null, watch: null };
  window.__bench = bench;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push({ start: Math.round(entry.startTime), duration: Math.round(entry.duration) });
  }).observe({ type: 'longtask', buffered: true });
  const check = () => {
    if (bench.firstRowsAt === null && document.querySelector('ul[aria-label="Conversations"] li button')) bench.firstRowsAt = performance.now();
    const watch = bench.watch;
    if (watch && watch.seenAt === null && document.querySelector(watch.selector)?.textContent?.includes(watch.text)) watch.seenAt = Date.now();
  };
  bench.check = check;
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const summary = (values) => ({ samples: values.length, p50_ms: percentile(values, 50), p95_ms: percentile(values, 95), max_ms: Math.max(...values) });

async function measureInbox(page, base) {
  const started = Date.now();
  await page.goto(`${base}/app/inbox`);
  await page.waitForFunction(() => window.__bench.firstRowsAt !== null, null, { timeout: 30_000 });
  await page.getByText(/^[\d,]+ conversations$/).waitFor();
  const load = await page.evaluate(() => ({
    first_rows_ms: Math.round(window.__bench.firstRowsAt),
    rows_in_page: document.querySelectorAll('ul[aria-label="Conversations"] > li').length,
    list_height_px: document.querySelector('.inbox-conversations').clientHeight,
    setsize: Number(document.querySelector('ul[aria-label="Conversations"] > li').getAttribute('aria-setsize')),
    long_tasks: window.__bench.longTasks.filter((task) => task.start <= window.__bench.firstRowsAt),
  }));
  load.wall_clock_to_first_rows_ms = Date.now() - started;
  await sleep(1_000);

  // A continuous scroll to the end, one screenful a frame, then until the last row has its data.
  const through = await page.evaluate(async () => {
    const bench = window.__bench;
    const scroller = document.querySelector('.inbox-conversations');
    const rows = () => document.querySelectorAll('ul[aria-label="Conversations"] > li');
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const requests = () => performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/rest/v1/conversations')).length;
    const requestsBefore = requests();
    const tasksBefore = bench.longTasks.length;
    const start = performance.now();
    let frames = 0;
    let longestFrame = 0;
    let maxRows = 0;
    let previous = start;
    while (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 1) {
      scroller.scrollTop += scroller.clientHeight;
      await frame();
      const now = performance.now();
      longestFrame = Math.max(longestFrame, now - previous);
      previous = now;
      frames++;
      maxRows = Math.max(maxRows, rows().length);
    }
    const atEnd = performance.now();
    const total = Number(rows()[0].getAttribute('aria-setsize'));
    while (!document.querySelector(`ul[aria-label="Conversations"] > li[aria-posinset="${total}"] button`)) {
      if (performance.now() - atEnd > 30_000) throw new Error('the last row did not load within 30 s');
      await frame();
    }
    const loaded = performance.now();
    return {
      scrolled_px: Math.round(scroller.scrollTop + scroller.clientHeight),
      frames,
      scroll_ms: Math.round(atEnd - start),
      longest_frame_ms: Math.round(longestFrame),
      last_row_loaded_after_ms: Math.round(loaded - atEnd),
      max_rows_in_page: maxRows,
      long_tasks: bench.longTasks.slice(tasksBefore),
      conversation_requests: requests() - requestsBefore,
    };
  });

  // In a freshly loaded inbox, End on the first row: the keyboard's way to the last conversation,
  // whose page is not loaded.
  await page.reload();
  await page.locator('ul[aria-label="Conversations"] > li[aria-posinset="1"] button').waitFor();
  await sleep(1_000);
  await page.locator('ul[aria-label="Conversations"] > li[aria-posinset="1"] button').waitFor();
  await page.locator('ul[aria-label="Conversations"] > li[aria-posinset="1"] button').focus();
  const tasksBefore = await page.evaluate(() => window.__bench.longTasks.length);
  const keyStart = Date.now();
  await page.keyboard.press('End');
  await page.waitForFunction(
    () =>
      document.activeElement?.closest('li')?.getAttribute('aria-posinset') === document.activeElement?.closest('li')?.getAttribute('aria-setsize') &&
      document.activeElement.tagName === 'BUTTON',
    null,
    {
      timeout: 30_000,
    },
  );
  const end = { focused_and_loaded_ms: Date.now() - keyStart, long_tasks: await page.evaluate((from) => window.__bench.longTasks.slice(from), tasksBefore) };
  end.rows_in_page = await page.evaluate(() => document.querySelectorAll('ul[aria-label="Conversations"] > li').length);
  return { load, scroll_through: through, end_key: end };
}

async function measureWebhooks(page, base, channel, run) {
  const post = (body) => call(base, `/functions/v1/chat-lite-webhook/${channel.id}`, { body, headers: { 'x-channel-token': channel.token } });
  const phone = (n) => `2012${String(n).padStart(8, '0')}`;
  // Posts `text`, then waits until it is in `selector`'s text; the time from just before the post.
  const timed = async (selector, text, message) => {
    await page.evaluate(
      ([selector, text]) => {
        window.__bench.watch = { selector, text, seenAt: null };
        window.__bench.check();
      },
      [selector, text],
    );
    const posted = Date.now();
    await post(message);
    const handle = await page.waitForFunction(() => window.__bench.watch.seenAt, null, { timeout: 20_000, polling: 50 });
    return (await handle.jsonValue()) - posted;
  };
  await page.goto(`${base}/app/inbox`);
  await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
  await page.getByText(/^[\d,]+ conversations$/).waitFor();
  const list = [];
  for (let n = 1; n <= MESSAGES; n++) {
    const text = `New customer ${run} ${n}`;
    list.push(
      await timed('ul[aria-label="Conversations"]', text, {
        type: 'message',
        id: `wamid.${run}-new-${n}`,
        from: `${phone(n)}@s.whatsapp.net`,
        name: `Bench ${n}`,
        text,
      }),
    );
    await sleep(300);
  }
  // The newest of them, open: its further messages in the thread's log.
  await page
    .locator('ul[aria-label="Conversations"] li')
    .filter({ has: page.locator('.row-title', { hasText: new RegExp(`^Bench ${MESSAGES}$`) }) })
    .getByRole('button')
    .click();
  await page.locator('[role="log"][aria-label="Messages"]').getByText(`New customer ${run} ${MESSAGES}`).waitFor();
  const thread = [];
  for (let n = 1; n <= MESSAGES; n++) {
    const text = `Follow-up ${run} ${n}`;
    thread.push(
      await timed('[role="log"][aria-label="Messages"]', text, {
        type: 'message',
        id: `wamid.${run}-again-${n}`,
        from: `${phone(MESSAGES)}@s.whatsapp.net`,
        name: `Bench ${MESSAGES}`,
        text,
      }),
    );
    await sleep(300);
  }
  return { new_conversation_in_list: summary(list), message_in_open_thread: summary(thread), list_ms: list, thread_ms: thread };
}

async function main() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => path && existsSync(path));
  if (!executablePath) throw new Error('no Chromium: install the distribution package (Debian: apt-get install -y chromium) or set CHROMIUM_PATH');
  const dir = mkdtempSync(join(tmpdir(), 'engage-bench-console-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as "nobody" under root
  const dataDir = join(dir, 'data');
  const secret = randomBytes(24).toString('hex');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    BILLING_WEBHOOK_SECRET: secret,
    LOGIN_LIMIT_PER_EMAIL: '1000000',
    LOGIN_LIMIT_PER_IP: '1000000',
  };
  const api = await startApi(env);
  let browser;
  const result = { name, date: new Date().toISOString(), node: process.version, cpus: cpus().length, conversations: CONVERSATIONS, messages: MESSAGES };
  try {
    const owner = await makeOrganization(api.url, env, secret);
    const created = await call(api.url, '/functions/v1/messaging/channel-accounts', { token: owner.token, body: { kind: 'chat_app', name: 'Bench line' } });
    const channel = { id: created.channel_account.id, token: created.inbound_token };
    const seedStart = Date.now();
    const databaseUrl = `postgresql://postgres@localhost:5432/engage?host=${encodeURIComponent(join(dataDir, 'pg'))}`;
    await seedConversations(databaseUrl, owner.organizationId, channel.id, CONVERSATIONS);
    result.seed_seconds = (Date.now() - seedStart) / 1000;

    browser = await chromium.launch({
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    result.chromium = browser.version();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(instrument);
    const page = await context.newPage();
    await page.goto(`${api.url}/app/sign-in`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    if (selected('inbox')) {
      result.inbox = await measureInbox(page, api.url);
      const { load, scroll_through: through, end_key: end } = result.inbox;
      process.stdout.write(
        `inbox of ${load.setsize} conversations: first rows ${load.first_rows_ms} ms after navigation, ${load.rows_in_page} rows in the page, ` +
          `${load.long_tasks.length} long tasks while loading\n` +
          `  scroll through (${through.frames} frames, ${through.scroll_ms} ms, longest frame ${through.longest_frame_ms} ms): ` +
          `at most ${through.max_rows_in_page} rows in the page, ${through.long_tasks.length} long tasks, last row loaded ${through.last_row_loaded_after_ms} ms after, ` +
          `${through.conversation_requests} list requests\n` +
          `  End key: the last row focused and loaded after ${end.focused_and_loaded_ms} ms, ${end.long_tasks.length} long tasks\n`,
      );
    }
    if (selected('webhook')) {
      result.webhook_to_screen = await measureWebhooks(page, api.url, channel, randomBytes(3).toString('hex'));
      for (const [what, figures] of Object.entries(result.webhook_to_screen).filter(([, value]) => !Array.isArray(value))) {
        process.stdout.write(
          `webhook to screen, ${what.replaceAll('_', ' ')}: p50 ${figures.p50_ms} ms, p95 ${figures.p95_ms} ms, max ${figures.max_ms} ms (${figures.samples})\n`,
        );
      }
    }
  } finally {
    await browser?.close();
    api.child.kill('SIGTERM');
    await new Promise((resolve) => (api.child.exitCode !== null ? resolve() : api.child.once('exit', resolve)));
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  const file = join(root, 'bench', 'results', `${name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
