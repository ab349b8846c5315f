// The delivery provider of the messaging scenarios: §4.2's contract on loopback, answering at once
// with a unique message id. A process of its own, so it takes no CPU from the load generator. It
// also stands in for the Graph API's user profiles (GET /<version>/<page-scoped id>?fields=...),
// which the worker looks up for each new Messenger contact. PROVIDER_RECORD=1: each send is written
// to stdout as `call <epoch ms, fractional> <receivers, comma-separated>` when its body has arrived,
// for scenarios that time a reply end to end (bench/automation-scenarios.mjs).
import { createServer } from 'node:http';

let seq = 0;
const record = process.env.PROVIDER_RECORD === '1';
const server = createServer((req, res) => {
  const chunks = [];
  if (record && req.method === 'POST') req.on('data', (chunk) => chunks.push(chunk));
  else req.resume();
  req.on('end', () => {
    if (chunks.length > 0) {
      const at = performance.timeOrigin + performance.now();
      try {
        const receivers = JSON.parse(Buffer.concat(chunks).toString()).UOWCHAT?.receivers ?? [];
        process.stdout.write(`call ${at.toFixed(2)} ${receivers.map((r) => r.mobileNum).join(',')}\n`);
      } catch {
        // not a chat-app send
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.method === 'GET') {
      const id = decodeURIComponent(new URL(req.url, 'http://graph').pathname.split('/').pop());
      return res.end(JSON.stringify({ id, first_name: 'Bench', last_name: `Customer ${id}`, profile_pic: `https://cdn.example/${id}.jpg` }));
    }
    res.end(JSON.stringify({ status: true, message: 'Message sent', external_id: `bench-${process.pid}-${++seq}` }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
