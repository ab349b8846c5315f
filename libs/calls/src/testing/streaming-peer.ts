import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SelfSignedCert } from '@engage/platform/testing';

const CHUNK = 64 * 1024;
// How long a gate waits for its condition before sending the rest anyway (then `gateMet` is false).
const GATE_LIMIT_MS = 30_000;

export interface StreamedBody {
  bytes: number;
  // The first bytes (a format's magic); the rest is a repeating pattern.
  head?: Buffer;
  contentType?: string;
  // Content-Length, or (false) chunked with no length announced.
  declareLength?: boolean;
  // The Authorization header a request must carry (else 401).
  authorization?: string;
  // Before sending byte `pauseAt`, wait until `until()` holds: what the receiver did with the bytes
  // so far, while the rest of the body has not been sent yet.
  pauseAt?: number;
  until?: () => boolean | Promise<boolean>;
}

export interface ServedBody {
  sent: number;
  writes: number;
  // Whether the gate's condition held before the rest was sent (null: no gate).
  gateMet: boolean | null;
  // The receiver closed the connection before the whole body was sent.
  cut: boolean;
  sha256: string;
}

// An HTTPS peer on 127.0.0.1 that sends large bodies in 64 KiB writes, waiting for the receiver to
// drain each (backpressure), so a test sees what the receiver does while a body is still arriving.
export class StreamingPeer {
  private server: Server | undefined;
  private readonly bodies = new Map<string, StreamedBody>();
  private readonly outcomes = new Map<string, Promise<ServedBody>>();
  url = '';

  constructor(private readonly cert: SelfSignedCert) {}

  async start(): Promise<this> {
    this.server = createServer({ cert: this.cert.cert, key: this.cert.key }, (req, res) => {
      const path = req.url ?? '';
      const body = this.bodies.get(path);
      if (!body) return void res.writeHead(404).end();
      if (body.authorization && req.headers.authorization !== body.authorization) return void res.writeHead(401).end();
      this.outcomes.set(path, send(res, body));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  serve(path: string, body: StreamedBody): string {
    this.bodies.set(path, body);
    return `${this.url}${path}`;
  }

  // What was sent for `path` once its response is over (undefined: never asked for).
  served(path: string): Promise<ServedBody> | undefined {
    return this.outcomes.get(path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

// Byte `at` of a body: its head, then the offset modulo 251 (no long run of one value).
function streamedBytes(head: Buffer | undefined, from: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = head && from + i < head.length ? head[from + i] : (from + i) % 251;
  return out;
}

// The next 'drain', or the connection's end: whichever comes first, with both listeners removed.
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function send(res: ServerResponse, body: StreamedBody): Promise<ServedBody> {
  const hash = createHash('sha256');
  const outcome: ServedBody = { sent: 0, writes: 0, gateMet: body.pauseAt === undefined ? null : false, cut: false, sha256: '' };
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const headers: Record<string, string | number> = { 'content-type': body.contentType ?? 'audio/mp4' };
  if (body.declareLength !== false) headers['content-length'] = body.bytes;
  res.writeHead(200, headers);
  const pattern = streamedBytes(undefined, 0, CHUNK + 251);
  while (outcome.sent < body.bytes && !closed) {
    if (body.pauseAt !== undefined && outcome.sent === body.pauseAt && body.until) {
      for (let waited = 0; waited < GATE_LIMIT_MS && !closed; waited += 50) {
        if (await body.until()) {
          outcome.gateMet = true;
          break;
        }
        await sleep(50);
      }
    }
    let length = Math.min(CHUNK, body.bytes - outcome.sent);
    if (body.pauseAt !== undefined && outcome.sent < body.pauseAt) length = Math.min(length, body.pauseAt - outcome.sent);
    const start = outcome.sent % 251;
    const chunk = body.head && outcome.sent < body.head.length ? streamedBytes(body.head, outcome.sent, length) : pattern.subarray(start, start + length);
    hash.update(chunk);
    outcome.sent += length;
    outcome.writes++;
    if (!res.write(chunk)) await drained(res);
  }
  outcome.cut = outcome.sent < body.bytes || closed;
  if (!closed) res.end();
  outcome.sha256 = hash.digest('hex');
  return outcome;
}
