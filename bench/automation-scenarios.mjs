// Automation scenarios of `npm run bench` (docs/automation.md, "Figures"):
//
// - RULES: 100 active rules on message.received and inbound chat-app webhooks at a fixed rate
//   (bench/paced-load.mjs, 1,000 customers of one account, each message meant for one of the
//   rules), processed by one worker process. Each event is evaluated against every rule and matches
//   exactly one, whose run adds a tag the contact already has (set before the load): one claimed
//   run and one CRM command per event, no cascade of events. Measured: the delay from the stored
//   event (outbox.created_at) to the run's started_at and finished_at (automation_runs), p50 and
//   p99; the rule engine's CPU per event, as the worker's (and PostgreSQL's) CPU per event with the
//   rules active less the same load with them inactive. A rate is sustained when everything the
//   load stored was processed within SUSTAINED_DRAIN_S of the load's end. A burst of events first
//   (the probe) gives the rate the worker processes; when that is below 1,000 events/s, the load
//   runs at four fifths of it (lower again while it is not sustained) and says so.
// - BOT: a flow whose one ask puts its question again after each answer, on a chat-app account
//   with pacing off, and 100 customers in 100 conversations, each answering as soon as the bot's
//   question reaches the provider (a recording loopback provider): the time from the inbound
//   acknowledgement of the customer's message to the provider call carrying the bot's answer.
//   The first message starts the session (the question goes out at once); later ones are answers,
//   which the bot takes one second after their first message (a burst within that second is one
//   answer), so that second is in their figures by design.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cpuWindow } from './cpu-usage.mjs';
import { pacedLoad } from './paced-load.mjs';
import { UNPACED } from './outbound-queue-scenario.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = (s) => ({ authorization: `Bearer ${s.accessToken}`, 'content-type': 'application/json' });
const now = () => performance.timeOrigin + performance.now();
const load = () => loadavg().map((value) => Number(value.toFixed(2)));
const SUSTAINED_DRAIN_S = 2;
const stop = (child) =>
  new Promise((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });

async function call(url, init, expected) {
  const res = await fetch(url, init);
  if (res.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function chatAppAccount(base, state, name) {
  const body = JSON.stringify({ kind: 'chat_app', name: `${name} ${Date.now()}` });
  const created = await call(`${base}/functions/v1/messaging/channel-accounts`, { method: 'POST', headers: bearer(state), body }, 201);
  const account = created.channel_account;
  await call(
    `${base}/functions/v1/messaging/channel-accounts/${account.id}`,
    { method: 'PATCH', headers: bearer(state), body: JSON.stringify({ pacing: UNPACED }) },
    200,
  );
  return { id: account.id, token: created.inbound_token };
}

const percentiles = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => (sorted.length === 0 ? null : Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1)));
  return { count: sorted.length, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: sorted.length ? Number(sorted[sorted.length - 1].toFixed(1)) : null };
};

export const AUTOMATION_RULES = 'automation: 100 active rules, 1,000 events/s through the worker';
export const AUTOMATION_BOT = 'automation: bot answer, 100 concurrent conversations, pacing off';

const topic = (i) => `#t${String(i).padStart(2, '0')}#`;
// The seeded contacts' numbers (+2010 00000001 ...), from `first`.
const phone = (n) => `+2010${String(n).padStart(8, '0')}`;

export async function measureAutomationRules({ base, state, databaseUrl, startWorker }) {
  const seconds = Number(process.env.BENCH_AUTOMATION_SECONDS ?? 10);
  const target = Number(process.env.BENCH_AUTOMATION_RATE ?? 1000);
  const customers = 1000;
  const account = await chatAppAccount(base, state, 'Bench rules');
  // 100 rules, each for one topic; a second condition of another kind on every fourth.
  const extra = [
    { field: 'message.channel_kind', operator: 'equals', value: 'chat_app' },
    { field: 'conversation.status', operator: 'in', value: ['OPEN', 'PENDING'] },
    { field: 'time.weekday', operator: 'in', value: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] },
    { field: 'contact.tags', operator: 'not_contains', value: 'vip' },
  ];
  const ruleIds = [];
  for (let i = 0; i < 100; i++) {
    const first =
      i % 2 === 0
        ? { field: 'message.content', operator: 'contains', value: topic(i) }
        : { field: 'message.content', operator: 'matches', value: `(?i)${topic(i)}` };
    const body = JSON.stringify({
      name: `Bench topic ${i}`,
      event: 'message.received',
      conditions: { all: [first, extra[i % 4]] },
      actions: [{ type: 'add_contact_tags', tags: ['bench-topic'] }],
      position: i,
    });
    const [rule] = await call(
      `${base}/rest/v1/automation_rules`,
      { method: 'POST', headers: { ...bearer(state), prefer: 'return=representation' }, body },
      201,
    );
    ruleIds.push(rule.id);
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const setActive = (active) => client.query('UPDATE automation_rules SET is_active = $2 WHERE id = ANY($1::uuid[])', [ruleIds, active]);
  let n = 0;
  const send = (rate, secs) =>
    pacedLoad({
      url: `${base}/functions/v1/chat-lite-webhook/${account.id}`,
      rate,
      seconds: secs,
      connections: 100,
      headers: { 'content-type': 'application/json', 'x-channel-token': account.token },
      body: () => {
        n++;
        return JSON.stringify({
          type: 'message',
          id: `bench-rule-${account.id}-${n}`,
          from: phone((n % customers) + 1),
          text: `question ${topic(n % 100)} no. ${n}`,
        });
      },
    });
  // Everything the load stored processed: no inbound event of the account waiting, no event unpublished
  // (with the in-process bus, published means every consumer, the rule engine included, handled it).
  const pending = async () =>
    (
      await client.query(
        `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM inbound_events WHERE processed_at IS NULL AND channel_account_id = $1 LIMIT 1) e)
              + (SELECT count(*)::int FROM (SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT 1) o) AS n`,
        [account.id],
      )
    ).rows[0].n;
  const drain = async (limitMs) => {
    const deadline = Date.now() + limitMs;
    while ((await pending()) > 0 && Date.now() < deadline) await sleep(50);
    return (await pending()) === 0;
  };
  // PostgreSQL's own counts (transactions, and per table sequential and index scans and rows read
  // by them), to see where the database's time per event goes.
  const tableStats = async () => {
    const [{ commits }] = (await client.query('SELECT xact_commit::bigint AS commits FROM pg_stat_database WHERE datname = current_database()')).rows;
    const tables = (await client.query('SELECT relname, seq_scan, seq_tup_read, coalesce(idx_scan, 0) AS idx_scan FROM pg_stat_user_tables')).rows;
    return { commits: Number(commits), tables: new Map(tables.map((row) => [row.relname, row])) };
  };
  const statsPerEvent = (before, after, events) => {
    const per = (value) => Number((value / Math.max(1, events)).toFixed(2));
    const tables = [...after.tables.values()]
      .map((row) => {
        const was = before.tables.get(row.relname) ?? { seq_scan: 0, seq_tup_read: 0, idx_scan: 0 };
        return {
          table: row.relname,
          seq_scans: per(row.seq_scan - was.seq_scan),
          seq_rows_read: per(row.seq_tup_read - was.seq_tup_read),
          index_scans: per(row.idx_scan - was.idx_scan),
        };
      })
      .filter((row) => row.seq_scans + row.index_scans > 0)
      .sort((a, b) => b.seq_rows_read - a.seq_rows_read || b.index_scans - a.index_scans)
      .slice(0, 12);
    return { transactions: per(after.commits - before.commits), tables };
  };
  // One load at `rate`, measured: acknowledgements, drain time, CPU from the load's start to the drain's end, runs.
  const phase = async (rate, secs) => {
    await client.query('CHECKPOINT');
    await sleep(1100); // statistics flushed (at most a second late)
    const statsBefore = await tableStats();
    const from = (await client.query('SELECT now() AS t')).rows[0].t;
    const loadBefore = load();
    const window = cpuWindow();
    const result = await send(rate, secs);
    const loadEnded = performance.now();
    const drained = await drain(90_000);
    const drainSeconds = (performance.now() - loadEnded) / 1000;
    const cpu = window();
    const events = (
      await client.query(`SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND type = 'message.received' AND created_at >= $2`, [
        state.organizationId,
        from,
      ])
    ).rows[0].n;
    await sleep(1100);
    const database = statsPerEvent(statsBefore, await tableStats(), events);
    return { rate, seconds: secs, result, drained, drainSeconds, cpu, events, from, loadBefore, loadAfter: load(), database };
  };
  const worker = await startWorker();
  try {
    // The customers' contacts carry the rules' tag already, so each run's command changes nothing
    // (and emits nothing); a warm-up with the rules inactive makes their 1,000 conversations.
    await client.query(
      `UPDATE contacts SET tags = array_append(tags, 'bench-topic')
       WHERE id IN (SELECT contact_id FROM contact_phones WHERE phone = ANY($1::text[])) AND NOT 'bench-topic' = ANY(tags)`,
      [Array.from({ length: customers }, (_, i) => phone(i + 1))],
    );
    await setActive(false);
    await send(Math.min(target, 500), customers / Math.min(target, 500));
    await drain(120_000);
    await setActive(true);
    // What the worker can process with the rules active: a burst of PROBE events, and the time
    // until all are processed (the engine's JIT warmed up by it as well).
    const PROBE = Number(process.env.BENCH_AUTOMATION_PROBE ?? 200);
    const probeStarted = performance.now();
    await send(Math.min(target, 1000), PROBE / Math.min(target, 1000));
    const probeDrained = await drain(300_000);
    const capacity = PROBE / ((performance.now() - probeStarted) / 1000);
    // The target rate when the probe says the worker keeps up with it, else four fifths of the
    // rate the probe reached; lower again (by a fifth) while a rate is not sustained.
    const tried = [];
    let rate = capacity >= target ? target : Math.max(1, Math.floor(0.8 * capacity));
    let on;
    for (let attempt = 0; attempt < 3; attempt++) {
      on = await phase(rate, seconds);
      const sustained = on.drained && on.drainSeconds <= SUSTAINED_DRAIN_S && on.result.ok === on.result.sent;
      tried.push({
        rate,
        sent: on.result.sent,
        acknowledged: on.result.ok,
        acknowledgement_p99_ms: on.result.p99_ms,
        processed_seconds_after_load: on.drained ? Number(on.drainSeconds.toFixed(2)) : null,
        sustained,
        load_average: on.loadAfter,
      });
      if (sustained || !on.drained) break;
      rate = Math.max(1, Math.floor(rate * 0.8));
    }
    // The same load with the rules inactive: what the worker spends without the rule engine's work.
    await setActive(false);
    const off = await phase(rate, seconds);
    await setActive(true);
    const delays = (
      await client.query(
        `SELECT extract(epoch FROM r.started_at - o.created_at) * 1000 AS started, extract(epoch FROM r.finished_at - o.created_at) * 1000 AS finished,
                r.status
         FROM automation_runs r JOIN outbox o ON o.id = r.event_id
         WHERE r.rule_id = ANY($1::uuid[]) AND o.created_at >= $2`,
        [ruleIds, on.from],
      )
    ).rows;
    const perEvent = (phaseResult, group) => Math.round(((phaseResult.cpu.cpu_seconds[group] ?? 0) * 1e6) / Math.max(1, phaseResult.events));
    const summary = (p) => ({
      rate: p.rate,
      sent: p.result.sent,
      acknowledged: p.result.ok,
      acknowledgement_p50_ms: p.result.p50_ms,
      acknowledgement_p99_ms: p.result.p99_ms,
      message_received_events: p.events,
      processed_seconds_after_load: p.drained ? Number(p.drainSeconds.toFixed(2)) : null,
      cpu: p.cpu,
      cpu_us_per_event: { worker: perEvent(p, 'worker'), api: perEvent(p, 'api'), postgres: perEvent(p, 'postgres') },
      // Per event, the bench's own queries included (its drain polling, the counts above).
      database_per_event: p.database,
      load_average_before: p.loadBefore,
      load_average_after: p.loadAfter,
    });
    const sustained = tried[tried.length - 1].sustained;
    return {
      scenario: AUTOMATION_RULES,
      events:
        'inbound chat-app webhooks (POST /functions/v1/chat-lite-webhook/<account>) at a fixed rate, open loop, from 1,000 customers; each a message.received event',
      rules:
        '100 active message.received rules, each matching one topic (50 contains, 50 matches (RE2)) plus one condition of another kind; every event matches one rule, whose action adds a tag the contact has',
      worker_pool_size: Number(process.env.BENCH_WORKER_POOL_SIZE ?? 2),
      target_rate: target,
      probe: { events: PROBE, drained: probeDrained, events_per_second: Number(capacity.toFixed(1)) },
      measured_rate: rate,
      sustained,
      rates_tried: tried,
      runs: delays.length,
      runs_by_status: delays.reduce((acc, row) => ({ ...acc, [row.status]: (acc[row.status] ?? 0) + 1 }), {}),
      event_to_run_started: percentiles(delays.map((row) => Number(row.started))),
      event_to_run_finished: percentiles(delays.filter((row) => row.finished !== null).map((row) => Number(row.finished))),
      rules_active: summary(on),
      rules_inactive: summary(off),
      rule_engine_cpu_us_per_event: {
        worker: perEvent(on, 'worker') - perEvent(off, 'worker'),
        postgres: perEvent(on, 'postgres') - perEvent(off, 'postgres'),
      },
    };
  } finally {
    await setActive(false).catch(() => undefined);
    await client.end();
    await stop(worker);
  }
}

// The loopback provider (bench/loopback-provider.mjs) recording each call's time and receivers.
function startRecordingProvider(root) {
  const child = spawn(process.execPath, [join(root, 'bench', 'loopback-provider.mjs')], {
    cwd: root,
    env: { ...process.env, PROVIDER_RECORD: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listeners = new Map(); // receiver digits -> callback(time)
  let buffered = '';
  let url;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the recording provider did not start')), 30_000);
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let end;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        const listening = /listening on (http:\/\/[\d.]+:\d+)/.exec(line);
        if (listening && !url) {
          url = listening[1];
          clearTimeout(timer);
          resolve({ child, url, listeners });
        }
        const called = /^call (\S+) (\S*)/.exec(line);
        if (called) for (const receiver of called[2].split(',')) listeners.get(receiver.replace(/\D/g, ''))?.(Number(called[1]));
      }
    });
  });
}

export async function measureBotAnswers({ root, base, state, databaseUrl, startWorker }) {
  const conversations = Number(process.env.BENCH_BOT_CONVERSATIONS ?? 100);
  const answers = Number(process.env.BENCH_BOT_ANSWERS ?? 3);
  // How long a customer waits for the bot's reply before giving the conversation up (counted as stalled).
  const patienceMs = Number(process.env.BENCH_BOT_PATIENCE_SECONDS ?? 180) * 1000;
  const provider = await startRecordingProvider(root);
  let worker;
  try {
    const account = await chatAppAccount(base, state, 'Bench bot');
    const flow = {
      name: 'Bench helpdesk',
      channel_account_ids: [account.id],
      trigger: { type: 'any_message' },
      definition: {
        start: 'topic',
        nodes: [
          {
            id: 'topic',
            type: 'ask',
            text: 'What else can we help with, {{contact.first_name | there}}? (last: {{variables.topic | none}})',
            save_as: 'variables.topic',
            next: 'topic',
          },
        ],
      },
    };
    const [created] = await call(
      `${base}/rest/v1/bot_flows`,
      { method: 'POST', headers: { ...bearer(state), prefer: 'return=representation' }, body: JSON.stringify(flow) },
      201,
    );
    await call(`${base}/functions/v1/automation/bots/${created.id}/publish`, { method: 'POST', headers: bearer(state) }, 200);
    worker = await startWorker(provider.url);
    const startLatencies = [];
    const answerLatencies = [];
    let stalled = 0;
    let m = 0;
    const customer = async (index) => {
      const from = phone(5001 + index);
      const digits = from.replace(/\D/g, '');
      for (let round = 0; round <= answers; round++) {
        const replied = new Promise((resolve) => {
          const timer = setTimeout(() => resolve(null), patienceMs);
          provider.listeners.set(digits, (time) => {
            clearTimeout(timer);
            resolve(time);
          });
        });
        const body = JSON.stringify({ type: 'message', id: `bench-bot-${account.id}-${++m}`, from, text: round === 0 ? 'hello' : `answer ${round}` });
        const res = await fetch(`${base}/functions/v1/chat-lite-webhook/${account.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-channel-token': account.token },
          body,
        });
        const acknowledged = now();
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`inbound: ${res.status}`);
        const called = await replied;
        provider.listeners.delete(digits);
        if (called === null) {
          stalled++;
          return;
        }
        (round === 0 ? startLatencies : answerLatencies).push(called - acknowledged);
      }
    };
    const loadBefore = load();
    const window = cpuWindow();
    const started = performance.now();
    await Promise.all(Array.from({ length: conversations }, (_, index) => customer(index)));
    const seconds = (performance.now() - started) / 1000;
    const cpu = window();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const sessions = (
      await client.query(`SELECT status, count(*)::int AS n FROM bot_sessions WHERE bot_flow_id = $1 GROUP BY status`, [created.id])
    ).rows.reduce((acc, row) => ({ ...acc, [row.status]: row.n }), {});
    await client.end();
    const replies = startLatencies.length + answerLatencies.length;
    const per = (group) => Math.round(((cpu.cpu_seconds[group] ?? 0) * 1e6) / Math.max(1, replies));
    const all = percentiles([...startLatencies, ...answerLatencies]);
    return {
      scenario: AUTOMATION_BOT,
      flow: 'one ask (text, saved to a variable) whose next is itself: each customer message gets one question back; trigger any_message',
      conversations,
      answers_per_conversation: answers,
      measured: 'from the inbound webhook 200 (client side) to the loopback provider receiving the call with the bot question, both on this machine clock',
      seconds: Number(seconds.toFixed(2)),
      stalled_conversations: stalled,
      session_start: percentiles(startLatencies),
      answer: percentiles(answerLatencies),
      answer_less_gathering_second: (() => {
        const p = percentiles(answerLatencies.map((value) => value - 1000));
        return { p50_ms: p.p50_ms, p99_ms: p.p99_ms, max_ms: p.max_ms };
      })(),
      all_replies: all,
      sessions,
      cpu,
      cpu_us_per_reply: { worker: per('worker'), api: per('api'), postgres: per('postgres'), provider: per('bench peers') },
      load_average_before: loadBefore,
      load_average_after: load(),
    };
  } finally {
    await stop(worker);
    await stop(provider.child);
  }
}
