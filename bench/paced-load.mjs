// Open-loop load at a steady rate: request i is due at start + i / rate, sent when due whatever the
// earlier ones are doing (over up to `connections` keep-alive sockets), and its latency is counted
// from when it was due, so a stalled server or a late load generator cannot hide behind fewer
// requests (no coordinated omission). autocannon's overallRate is not this: each connection sends
// its share of the second back to back as soon as the second starts, i.e. 1,000 requests as a
// burst of `connections` concurrent requests every second.
import { Agent, request } from 'node:http';

export async function pacedLoad({ url, rate, seconds, connections = 100, headers, body }) {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(rate * seconds);
  const latencies = [];
  const statuses = new Map();
  let errors = 0;
  let sent = 0;
  let finished = 0;
  const started = performance.now();
  const send = (i, due) =>
    new Promise((resolve) => {
      const payload = body(i);
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(payload);
    });
  const inFlight = [];
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + (sent * 1000) / rate <= now) {
        const due = started + (sent * 1000) / rate;
        inFlight.push(send(sent++, due).then(() => finished++));
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, started + (sent * 1000) / rate - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
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
