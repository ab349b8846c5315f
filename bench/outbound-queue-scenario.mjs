// The paced send queue's drain (`npm run bench -- --only "outbound queue"`): BENCH_QUEUE_MESSAGES
// (default 10,000) queued sends (POST /functions/v1/messaging/outbound, origin api_queued) over
// BENCH_QUEUE_ACCOUNTS (default 100) chat-app accounts whose pacing is off (no gaps, caps, quiet
// hours or per-recipient limits), stored while the worker is stopped, then drained by one worker
// process against the loopback provider: messages per second from the worker's start to the last
// SENT, and the CPU per message of the worker, the api and PostgreSQL; the same again counted from
// when the worker said it started (its boot left out). Variant `distinct`: every
// message its own text (one provider call each); `broadcast`: the queued rows are then made one
// broadcast per account with one text, as a broadcast stores them, so the chat app's calls carry up
// to receivers_per_call (10) receivers each.
import pg from 'pg';
import { cpuWindow } from './cpu-usage.mjs';

const bearer = (s) => ({ authorization: `Bearer ${s.accessToken}`, 'content-type': 'application/json' });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// Pacing off: no gaps, caps, warm-up, quiet hours or per-recipient limits (the other benches use it too).
export const UNPACED = {
  gap_seconds: [0, 0],
  cold_gap_seconds: [0, 0],
  per_hour: null,
  per_day: null,
  warmup: false,
  per_recipient_min_gap_seconds: 0,
  per_recipient_per_hour: 3600,
  quiet_hours: null,
};

async function call(url, init, expected) {
  const res = await fetch(url, init);
  if (res.status !== expected) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

// `startWorker` starts the worker process; the queue is filled before it runs, so the drain is measured alone.
export async function measureOutboundQueue({ base, state, databaseUrl, startWorker, variant = 'distinct' }) {
  const messages = Number(process.env.BENCH_QUEUE_MESSAGES ?? 10_000);
  const accountCount = Number(process.env.BENCH_QUEUE_ACCOUNTS ?? 100);
  const accounts = [];
  for (let i = 0; i < accountCount; i++) {
    const body = JSON.stringify({ kind: 'chat_app', name: `Queue ${i} ${Date.now()}` });
    const { channel_account: account } = await call(`${base}/functions/v1/messaging/channel-accounts`, { method: 'POST', headers: bearer(state), body }, 201);
    await call(
      `${base}/functions/v1/messaging/channel-accounts/${account.id}`,
      { method: 'PATCH', headers: bearer(state), body: JSON.stringify({ pacing: UNPACED }) },
      200,
    );
    accounts.push(account.id);
  }
  const enqueueStarted = performance.now();
  let next = 0;
  const enqueueOne = async () => {
    while (next < messages) {
      const n = next++;
      const body = JSON.stringify({ channel_account_id: accounts[n % accountCount], to: `2012${String(n + 1).padStart(8, '0')}`, text: `Your code is ${n}` });
      await call(`${base}/functions/v1/messaging/outbound`, { method: 'POST', headers: bearer(state), body }, 202);
    }
  };
  await Promise.all(Array.from({ length: 10 }, enqueueOne));
  const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  if (variant === 'broadcast') {
    await client.query(
      `UPDATE messages SET origin = 'broadcast', origin_id = md5(channel_account_id::text)::uuid, content = 'Weekend sale: 20% off everything'
       WHERE channel_account_id = ANY($1::uuid[]) AND status = 'QUEUED'`,
      [accounts],
    );
  }
  const count = async (status) =>
    Number(
      (await client.query(`SELECT count(*)::int AS n FROM messages WHERE channel_account_id = ANY($1::uuid[]) AND status = $2`, [accounts, status])).rows[0].n,
    );
  const window = cpuWindow();
  const started = performance.now();
  const worker = await startWorker();
  // From here the worker has booted (loaded its modules and connected): the drain alone.
  const afterStart = cpuWindow();
  const ready = performance.now();
  let sent = 0;
  let failed = 0;
  try {
    for (let waited = 0; waited < 600_000; waited += 250) {
      [sent, failed] = [await count('SENT'), await count('FAILED')];
      if (sent + failed >= messages) break;
      await sleep(250);
    }
  } finally {
    await client.end();
  }
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  const { cpu_seconds: cpu } = window();
  const { cpu_seconds: cpuAfterStart } = afterStart();
  const per = (s) => Math.round(((s ?? 0) * 1e6) / Math.max(1, sent + failed));
  worker.kill('SIGTERM');
  return {
    scenario: `outbound queue drain, pacing off, ${variant === 'broadcast' ? 'one broadcast text per account' : 'distinct texts'}`,
    messages,
    accounts: accountCount,
    enqueue_per_second: Math.round(messages / enqueueSeconds),
    sent,
    failed,
    drained: sent + failed >= messages,
    // From the worker's start (its boot included) to the last message settled.
    drain_seconds: Number(seconds.toFixed(2)),
    messages_per_second: Math.round((sent + failed) / seconds),
    cpu_us_per_message: { worker: per(cpu.worker), api: per(cpu.api), postgres: per(cpu.postgres), provider: per(cpu['bench peers']) },
    // The same once the worker said it started (its boot left out).
    worker_start_seconds: Number(((ready - started) / 1000).toFixed(2)),
    messages_per_second_after_start: Math.round((sent + failed) / ((ended - ready) / 1000)),
    cpu_us_per_message_after_start: {
      worker: per(cpuAfterStart.worker),
      postgres: per(cpuAfterStart.postgres),
      provider: per(cpuAfterStart['bench peers']),
    },
  };
}
