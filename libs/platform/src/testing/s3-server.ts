import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The parts of s3rver (an S3-compatible server on the local file system, from npm, no types of
// its own) the tests use. It checks SigV4 signatures against its one key pair.
interface S3rverApp {
  configureBuckets(): Promise<unknown>;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}
type S3rverClass = new (options: { silent: boolean; directory: string; configureBuckets: { name: string }[] }) => S3rverApp;
const S3rver = createRequire(__filename)('@20minutes/s3rver') as S3rverClass;

export interface S3Request {
  method: string;
  // Path and query as sent: /bucket/key?partNumber=2&uploadId=...
  path: string;
  status: number;
}

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  // The settings that point the service at this server.
  env: { CDN_URL: string; CDN_ACCESS_KEY_ID: string; CDN_SECRET_ACCESS_KEY: string; CDN_REGION: string };
  // Every request answered, in order.
  requests: S3Request[];
  // An object as the server serves it (anonymous GET), or undefined when it has none.
  object(key: string): Promise<{ bytes: Buffer; contentType: string | null } | undefined>;
  close(): Promise<void>;
}

// A real S3-compatible server on 127.0.0.1 with one bucket, its files in a temporary directory.
export async function startTestS3Server(bucket = 'engage-cdn'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'engage-s3-'));
  const app = new S3rver({ silent: true, directory, configureBuckets: [{ name: bucket }] });
  await app.configureBuckets();
  const handle = app.callback();
  const requests: S3Request[] = [];
  const server = createServer((req, res) => {
    res.on('finish', () => requests.push({ method: req.method ?? '', path: req.url ?? '', status: res.statusCode }));
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    bucket,
    env: { CDN_URL: `${endpoint}/${bucket}`, CDN_ACCESS_KEY_ID: 'S3RVER', CDN_SECRET_ACCESS_KEY: 'S3RVER', CDN_REGION: 'eu-west-1' },
    requests,
    async object(key) {
      const response = await fetch(`${endpoint}/${bucket}/${key}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`test S3 server answered ${response.status}`);
      return { bytes: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
