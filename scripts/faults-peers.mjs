// The outside world of `npm run faults` (scripts/faults.mjs): a webhook receiver (HTTPS on
// loopback, scripts/faults-receiver.mjs) that records every delivery, a stand-in for the Graph API that records every profile
// look-up (the `messaging.meta-profile` job) and answers slowly, and the providers posting inbound
// messages at a steady rate, retrying as a provider does.
import { createHmac } from 'node:crypto';
import { fork } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The webhook receiver (scripts/faults-receiver.mjs, a process of its own): `deliveries` fills with
// what it reports. `track` registers the child for the exit handlers.
export function startReceiver(cert, track) {
  const deliveries = [];
  const child = fork(join(dirname(fileURLToPath(import.meta.url)), 'faults-receiver.mjs'), [cert.certPath, cert.keyPath], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  track(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (${code})`)));
    child.on('message', (message) => {
      if (Array.isArray(message)) deliveries.push(...message);
      else if (message.listening) {
        child.removeAllListeners('exit');
        resolve({ child, deliveries, url: message.listening });
      }
    });
  });
}

// GET /v23.0/<page-scoped id>?fields=...: answers a profile after `delayMs`, so a worker has jobs
// in flight when it is killed. Each call records when it started and whether it was answered or
// cut off (the caller went away first).
export async function startGraph(delayMs) {
  const calls = [];
  const server = createHttpServer((req, res) => {
    const psid = decodeURIComponent(new URL(req.url, 'http://graph').pathname.split('/').pop());
    const call = { psid, start: Date.now(), end: null, aborted: null };
    calls.push(call);
    req.resume();
    const timer = setTimeout(() => {
      if (res.destroyed) return;
      call.end = Date.now();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: psid, first_name: 'Faults', last_name: `Customer ${psid}`, profile_pic: `https://cdn.example/${psid}.jpg` }));
    }, delayMs);
    res.on('close', () => {
      if (call.end === null) {
        clearTimeout(timer);
        call.aborted = Date.now();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, calls, inFlight: () => calls.filter((c) => c.end === null && c.aborted === null).length, url: `http://127.0.0.1:${server.address().port}` };
}

// Posts `rate` messages a second until `until()` (ms since the epoch), message n to api n % 2, each until it is answered
// 200 (acknowledged), refused with a 4xx (rejected), or `giveUpAt` passes. A 503 or 429 with
// Retry-After is tried again after that delay, a connection failure or other 5xx after 1 s, each
// time at the other api (as a provider behind a balancer would). `request(n)` gives
// {path, headers, body, id}; `apis()` the current base URLs.
export class SteadyLoad {
  constructor({ name, rate, apis, request, until, giveUpAt }) {
    Object.assign(this, { name, rate, apis, request, until, giveUpAt });
    this.messages = [];
    this.statuses = {};
    this.retries = 0;
    this.failures = []; // [ms since the load started, status (0: no answer), api index]
    this.serverErrors = []; // first bodies of 5xx answers other than 503
    this.started = 0;
    this.pending = new Set();
  }

  async run() {
    this.started = Date.now();
    for (let n = 0; ; n++) {
      const due = this.started + (n * 1000) / this.rate;
      if (due >= this.until()) break;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      const task = this.send(n);
      this.pending.add(task);
      task.finally(() => this.pending.delete(task));
    }
    this.loadEnded = Date.now();
  }

  // Resolves when every message sent so far has its outcome.
  async settled() {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async send(n) {
    const { path, headers, body, id } = this.request(n);
    const message = { n, id, attempts: 0, acked: null, rejected: null, gaveUp: false, firstAt: Date.now() };
    this.messages.push(message);
    let target = n % 2;
    for (;;) {
      message.attempts++;
      let status = 0;
      let retryAfter = null;
      let text = '';
      try {
        const res = await fetch(`${this.apis()[target]}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch {
        status = 0;
      }
      this.statuses[status] = (this.statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) {
        message.acked = Date.now();
        return;
      }
      this.failures.push([Date.now() - this.started, status, target]);
      if (status >= 500 && status !== 503 && this.serverErrors.length < 20) this.serverErrors.push({ status, api: target, body: text.slice(0, 300) });
      if (status >= 400 && status < 500 && status !== 429 && status !== 408) {
        message.rejected = { status, body: text.slice(0, 200) };
        return;
      }
      if (Date.now() > this.giveUpAt()) {
        message.gaveUp = true;
        return;
      }
      this.retries++;
      const delay = retryAfter && Number.isFinite(Number(retryAfter)) ? Math.min(Number(retryAfter), 30) * 1000 : 1000;
      await sleep(delay);
      target = 1 - target;
    }
  }
}

// The chat-app receiver's requests: unique provider ids, 500 customers.
export function chatAppRequest(run, channelId, token) {
  return (n) => {
    const id = `faults-${run}-${n}`;
    return {
      id,
      path: `/functions/v1/chat-lite-webhook/${channelId}`,
      headers: { 'content-type': 'application/json', 'x-channel-token': token },
      body: JSON.stringify({ type: 'message', id, from: `+2010${String((n % 500) + 1).padStart(8, '0')}`, text: `fault run message ${n}` }),
    };
  };
}

// Meta's webhook: one message per request, each from a new customer, so each creates a contact and
// a `messaging.meta-profile` job; signed as Meta signs.
export function messengerRequest(run, pageId, appSecret) {
  return (n) => {
    const id = `m_faults_${run}_${n}`;
    const body = JSON.stringify({
      object: 'page',
      entry: [
        {
          id: pageId,
          time: Date.now(),
          messaging: [
            { sender: { id: `psid-${run}-${n}` }, recipient: { id: pageId }, timestamp: Date.now(), message: { mid: id, text: `fault run message ${n}` } },
          ],
        },
      ],
    });
    return {
      id,
      path: '/functions/v1/meta-webhook',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}` },
      body,
    };
  };
}
