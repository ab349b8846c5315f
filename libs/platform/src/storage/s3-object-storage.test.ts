import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { startTestS3Server, type TestS3Server } from '../testing/s3-server';
import type { S3Target } from './cdn-target';
import { S3ObjectStorage } from './s3-object-storage';

const MiB = 1024 * 1024;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let s3: TestS3Server;
let target: S3Target;
let storage: S3ObjectStorage;
beforeAll(async () => {
  s3 = await startTestS3Server();
  const keys = { accessKeyId: s3.env.CDN_ACCESS_KEY_ID, secretAccessKey: s3.env.CDN_SECRET_ACCESS_KEY };
  target = { endpoint: s3.endpoint, bucket: s3.bucket, ...keys, region: 'eu-west-1', timeoutMs: 10_000, publicUrl: s3.env.CDN_URL };
  storage = new S3ObjectStorage(target);
});
afterAll(async () => {
  await storage.onModuleDestroy();
  await s3.close();
});

const keyOf = (ext: string) => `suite-7/2026/11/${randomUUID()}.${ext}`;
// Requests the server answered for one key, as "METHOD status query-names" (partNumber with its value).
const requestsFor = (key: string) =>
  s3.requests
    .filter((r) => r.path.split('?')[0] === `/${s3.bucket}/${key}`)
    .map((r) => {
      const query = [...new URL(r.path, s3.endpoint).searchParams].filter(([name]) => name !== 'x-id');
      return [r.method, r.status, ...query.map(([name, value]) => (name === 'partNumber' ? `${name}=${value}` : name))].join(' ');
    });

// A body of unknown length, sent in 64 KiB chunks as a client's upload arrives.
function streamOf(bytes: Buffer, after?: { at: number; then: () => Promise<void> }): Readable {
  return Readable.from(
    (async function* () {
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        if (after && at >= after.at) await after.then();
        yield bytes.subarray(at, at + 64 * 1024);
      }
    })(),
  );
}

describe('the S3-compatible object storage', () => {
  it('should stream a body of unknown length as a multipart upload, all parts received and the bytes whole', async () => {
    const bytes = randomBytes(12 * MiB + 12345);
    const key = keyOf('mp3');
    const stored = await storage.put(key, streamOf(bytes), { contentType: 'audio/mpeg' });
    expect(stored).toEqual({ key, url: `${s3.env.CDN_URL}/${key}`, bytes: bytes.length });
    const calls = requestsFor(key);
    expect(calls[0]).toBe('POST 200 uploads');
    const parts = calls.filter((c) => c.startsWith('PUT')).sort();
    expect(parts).toEqual(['PUT 200 partNumber=1 uploadId', 'PUT 200 partNumber=2 uploadId', 'PUT 200 partNumber=3 uploadId']);
    expect(calls.at(-1)).toBe('POST 200 uploadId');
    const served = await s3.object(key);
    expect(served?.bytes.length).toBe(bytes.length);
    expect(sha(served!.bytes)).toBe(sha(bytes));
    expect(served?.contentType).toBe('audio/mpeg');
  });

  it('should put a Buffer in one request, and remove it (twice without error)', async () => {
    const bytes = Buffer.from('89504e470d0a1a0a', 'hex');
    const key = keyOf('png');
    expect(await storage.put(key, bytes, { contentType: 'image/png' })).toEqual({ key, url: `${s3.env.CDN_URL}/${key}`, bytes: 8 });
    expect(requestsFor(key)).toEqual(['PUT 200']);
    expect((await s3.object(key))?.bytes.equals(bytes)).toBe(true);
    await storage.remove(key);
    await storage.remove(key);
    expect(await s3.object(key)).toBeUndefined();
    expect(requestsFor(key).filter((c) => c.startsWith('DELETE'))).toEqual(['DELETE 204', 'DELETE 204']);
  });

  it('should say the server refused a wrong secret key, without the key in the message', async () => {
    const secret = 'wrong-secret-f3a9c1d27b';
    const wrong = new S3ObjectStorage({ ...target, secretAccessKey: secret });
    const key = keyOf('mp3');
    const failure = await wrong.put(key, streamOf(randomBytes(MiB)), { contentType: 'audio/mpeg' }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    const serverSays = 'The request signature we calculated does not match the signature you provided. Check your key and signing method.';
    expect((failure as Error).message).toBe(`object storage could not store "${key}": SignatureDoesNotMatch (HTTP 403): ${serverSays}`);
    expect(JSON.stringify(failure) + String((failure as Error).stack) + String((failure as Error).cause)).not.toContain(secret);
    expect(requestsFor(key)).toEqual(['PUT 403']);
    expect(await s3.object(key)).toBeUndefined();
    await wrong.onModuleDestroy();
  });

  it("should fail with the body's own error when it fails mid-way, aborting the multipart upload", async () => {
    const key = keyOf('wav');
    const body = streamOf(randomBytes(8 * MiB), { at: 6 * MiB, then: () => Promise.reject(new Error('client went away')) });
    await expect(storage.put(key, body, { contentType: 'audio/wav' })).rejects.toThrow('client went away');
    const calls = requestsFor(key);
    expect(calls[0]).toBe('POST 200 uploads');
    // AbortMultipartUpload was asked for (this server does not implement it: 405).
    expect(calls.at(-1)).toMatch(/^DELETE (204|405) uploadId$/);
    expect(await s3.object(key)).toBeUndefined();
  });

  it('should stop when its signal aborts, and store nothing', async () => {
    const key = keyOf('ogg');
    const controller = new AbortController();
    const stalled = new Promise<void>(() => undefined);
    const body = streamOf(randomBytes(8 * MiB), { at: 6 * MiB, then: () => (controller.abort(), stalled) });
    await expect(storage.put(key, body, { contentType: 'audio/ogg', signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(body.destroyed).toBe(true);
    expect(await s3.object(key)).toBeUndefined();
    await expect(storage.put(key, Buffer.from('x'), { contentType: 'audio/ogg', signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('should refuse keys that are not plain segments before sending anything', async () => {
    const before = s3.requests.length;
    for (const key of ['../escape.mp3', 'a//b', '.hidden/x', '']) {
      await expect(storage.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/invalid object key/);
    }
    expect(s3.requests.length).toBe(before);
  });

  it('should give up on a server that never answers, saying so', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const hung = new S3ObjectStorage({ ...target, endpoint: `http://127.0.0.1:${port}`, timeoutMs: 300 });
    await expect(hung.put(keyOf('mp3'), Buffer.from('x'), { contentType: 'audio/mpeg' })).rejects.toThrow(/could not store .*TimeoutError/);
    await hung.onModuleDestroy();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('should stream an object back by its key, and answer undefined for a missing key or an invalid one', async () => {
    const bytes = randomBytes(7 * MiB + 321);
    const key = keyOf('m4a');
    await storage.put(key, streamOf(bytes), { contentType: 'audio/mp4' });
    const opened = await storage.read(key);
    expect(opened?.bytes).toBe(bytes.length);
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.body) chunks.push(chunk as Buffer);
    expect(sha(Buffer.concat(chunks))).toBe(sha(bytes));
    expect(await storage.read(keyOf('mp3'))).toBeUndefined();
    expect(await storage.read('../escape/key.mp3')).toBeUndefined();
  });
});
