import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: { UOWCHAT: { random_string: number; receivers: { mobileNum: string }[]; message: string; imageUrl: string; videoUrl: string; documentUrl: string } };
  at: number;
}

export type Reply = { status: number; body: unknown; delayMs?: number } | undefined;

// A real provider on 127.0.0.1 for tests: records every call and answers like the provider, or as
// `script` says for a given receiver.
export class RecordingProvider {
  readonly calls: RecordedCall[] = [];
  script: (call: RecordedCall) => Reply = () => undefined;
  private server: Server | undefined;
  private seq = 0;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const call: RecordedCall = {
          path: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
          at: Date.now(),
        };
        this.calls.push(call);
        const reply = this.script(call) ?? { status: 200, body: { status: true, message: 'Message sent', external_id: `ext-${++this.seq}-${Date.now()}` } };
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status, { 'content-type': 'application/json' }).end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  callsTo(mobileNum: string): RecordedCall[] {
    return this.calls.filter((c) => c.body.UOWCHAT?.receivers?.some((r) => r.mobileNum === mobileNum));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
