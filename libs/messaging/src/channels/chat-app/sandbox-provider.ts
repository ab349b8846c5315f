import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SandboxCall {
  organizationId: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  receivedAt: number;
}

// The provider stand-in for `npm start` without NOTIFY_URL: the §4.2 contract on 127.0.0.1, keeping
// the last calls it was sent (GET /calls lists them). Never in production.
export class SandboxProvider {
  readonly calls: SandboxCall[] = [];
  private server: Server | undefined;

  static refuseInProduction(nodeEnv: string): void {
    if (nodeEnv === 'production') throw new Error('the sandbox messaging provider is refused when NODE_ENV=production: set NOTIFY_URL');
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const match = /^\/([^/]+)\/send$/.exec(req.url ?? '');
        res.setHeader('content-type', 'application/json');
        if (req.method === 'GET' && req.url === '/calls') return res.end(JSON.stringify(this.calls));
        if (req.method !== 'POST' || !match) return res.writeHead(404).end(JSON.stringify({ status: false, message: 'not found' }));
        if (!req.headers.appapikey) return res.writeHead(401).end(JSON.stringify({ status: false, message: 'missing appapikey' }));
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return res.writeHead(400).end(JSON.stringify({ status: false, message: 'invalid JSON' }));
        }
        this.calls.push({ organizationId: decodeURIComponent(match[1]), headers: req.headers, body, receivedAt: Date.now() });
        if (this.calls.length > 1000) this.calls.shift();
        res.end(JSON.stringify({ status: true, message: 'Message queued (sandbox)', external_id: `sandbox-${randomUUID()}` }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
