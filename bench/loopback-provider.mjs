// The delivery provider of the messaging scenarios: §4.2's contract on loopback, answering at once
// with a unique message id. A process of its own, so it takes no CPU from the load generator. It
// also stands in for the Graph API's user profiles (GET /<version>/<page-scoped id>?fields=...),
// which the worker looks up for each new Messenger contact.
import { createServer } from 'node:http';

let seq = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
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
