import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SelfSignedCert {
  certPath: string;
  cert: string;
  key: string;
}

// A throwaway certificate for localhost and 127.0.0.1, made with the openssl CLI at test time.
export function createSelfSignedCert(): SelfSignedCert {
  const dir = mkdtempSync(join(tmpdir(), 'engage-cert-'));
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { certPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

// How the receiver answers one request; return undefined to never answer (a hung endpoint).
export type ReceiverBehaviour = (
  request: ReceivedRequest,
  res: ServerResponse,
) => { status: number; body?: string; headers?: Record<string, string> } | undefined;

export interface HttpsReceiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  behave(behaviour: ReceiverBehaviour): void;
  // Resolves once `count` requests have arrived (the test's own timeout bounds the wait).
  waitFor(count: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

// An HTTPS peer on 127.0.0.1 that records what it receives, for tests of outbound calls.
export async function startHttpsReceiver(cert: SelfSignedCert, behaviour: ReceiverBehaviour = () => ({ status: 200, body: 'ok' })): Promise<HttpsReceiver> {
  const received: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: (r: ReceivedRequest[]) => void }[] = [];
  const hung = new Set<ServerResponse>();
  let current = behaviour;
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(received.slice());
      }
      const answer = current(request, res);
      if (!answer) {
        hung.add(res);
        return;
      }
      if (res.writableEnded) return;
      res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    behave: (next) => {
      current = next;
    },
    waitFor: (count) => (received.length >= count ? Promise.resolve(received.slice()) : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
