// Open-loop load at a steady rate: request i is due at start + i / rate, sent when due whatever the
// earlier ones are doing (over up to `connections` keep-alive sockets), and its latency is counted
// from when it was due, so a stalled server or a late load generator cannot hide behind fewer
// requests (no coordinated omission). autocannon's overallRate is not this: each connection sends
// its share of the second back to back as soon as the second starts, i.e. 1,000 requests as a
// burst of `connections` concurrent requests every second.
//
// The generator shares the machine with the server, so it is kept cheap: plain sockets, each
// request written as one prepared buffer, and only the status line and Content-Length of each
// response read (node:http's client cost about half as much CPU as the server it measured).
// BENCH_TRACE=<file> writes the start (epoch ms) and [due ms since start, latency ms] of every
// request, to line them up with server-side records.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';

const HEADER_END = Buffer.from('\r\n\r\n');

// One keep-alive connection with at most one request on it at a time.
class Connection {
  constructor(host, port, onDone) {
    this.host = host;
    this.port = port;
    this.onDone = onDone;
    this.current = undefined;
    this.socket = undefined;
  }

  send(request, due) {
    this.current = { due };
    this.buffer = Buffer.alloc(0);
    if (!this.socket || this.socket.destroyed) this.open();
    this.socket.write(request);
  }

  open() {
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (chunk) => this.read(chunk));
    socket.on('error', () => this.finish(null));
    socket.on('close', () => {
      if (this.current) this.finish(null);
    });
    this.socket = socket;
  }

  read(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.buffer.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      // Every route measured here answers with a Content-Length; anything else is a failure.
      this.socket.destroy();
      return this.finish(null);
    }
    if (this.buffer.length < end + 4 + Number(length[1])) return;
    this.finish(status);
  }

  finish(status) {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    this.onDone(this, current.due, status);
  }
}

// `headersOf(payload)`, when given, adds headers computed from each body (e.g. its signature).
export async function pacedLoad({ url, rate, seconds, connections = 100, headers, body, headersOf }) {
  const target = new URL(url);
  const total = Math.round(rate * seconds);
  const latencies = [];
  const trace = process.env.BENCH_TRACE ? [] : undefined;
  const statuses = new Map();
  let errors = 0;
  let sent = 0;
  let finished = 0;
  const waiting = []; // [request buffer, due] with no free connection yet
  const idle = [];
  const started = performance.now();
  const headerLines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const extra = (payload) =>
    headersOf
      ? Object.entries(headersOf(payload))
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')
      : '';
  const build = (payload) =>
    Buffer.concat([
      Buffer.from(
        `POST ${target.pathname} HTTP/1.1\r\nhost: ${target.host}\r\n${headerLines}${extra(payload)}` + `content-length: ${Buffer.byteLength(payload)}\r\n\r\n`,
        'latin1',
      ),
      Buffer.from(payload),
    ]);
  let allDone;
  const everything = new Promise((resolve) => (allDone = resolve));
  const done = (connection, due, status) => {
    finished++;
    if (status === null) errors++;
    else {
      const latency = performance.now() - due;
      latencies.push(latency);
      trace?.push([Math.round(due - started), Number(latency.toFixed(2))]);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const next = waiting.shift();
    if (next) connection.send(next[0], next[1]);
    else idle.push(connection);
    if (finished === total) allDone();
  };
  const port = Number(target.port || 80);
  for (let i = 0; i < connections; i++) idle.push(new Connection(target.hostname, port, done));
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + (sent * 1000) / rate <= now) {
        const due = started + (sent * 1000) / rate;
        const request = build(body(sent++));
        const connection = idle.pop();
        if (connection) connection.send(request, due);
        else waiting.push([request, due]);
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, started + (sent * 1000) / rate - performance.now()));
    };
    tick();
  });
  if (total > 0) await everything;
  const elapsed = (performance.now() - started) / 1000;
  for (const connection of idle) connection.socket?.destroy();
  if (trace) writeFileSync(process.env.BENCH_TRACE, JSON.stringify({ origin: performance.timeOrigin + started, trace }));
  latencies.sort((a, b) => a - b);
  const at = (q) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(1));
  const ok = [...statuses].filter(([code]) => code >= 200 && code < 300).reduce((sum, [, n]) => sum + n, 0);
  return {
    sent,
    finished,
    ok,
    non2xx: finished - ok - errors,
    errors,
    requests_per_second: Number((sent / elapsed).toFixed(1)),
    p50_ms: at(0.5),
    p90_ms: at(0.9),
    p99_ms: at(0.99),
    max_ms: Number((latencies[latencies.length - 1] ?? NaN).toFixed(1)),
  };
}
