// The webhook receiver of `npm run faults` (scripts/faults.mjs), in a process of its own so the
// load generator's work never delays its answers: HTTPS on 127.0.0.1, answers every delivery 200
// at once and reports each one (webhook-id, event, the message it is about, arrival time) to the
// parent over IPC, in batches.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [certPath, keyPath] = process.argv.slice(2);
let batch = [];
const flush = () => {
  if (batch.length === 0) return;
  process.send?.(batch);
  batch = [];
};
setInterval(flush, 100);

const server = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const at = Date.now();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    let data = {};
    let event;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      data = body.data ?? {};
      event = body.event;
    } catch {
      // recorded without a message
    }
    batch.push({
      at,
      webhookId: req.headers['webhook-id'] ?? null,
      event: event ?? req.headers['x-webhook-event'],
      messageId: data.id,
      externalId: data.external_id,
      channel: data.channel_account_id,
      createdAt: data.created_at ? Date.parse(data.created_at) : null,
    });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ listening: `https://127.0.0.1:${server.address().port}` }));
// Ends with its parent.
process.on('disconnect', () => process.exit(0));
