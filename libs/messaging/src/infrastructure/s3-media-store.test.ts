import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3MediaStore } from './s3-media-store';
import { sha256Hex, signV4 } from './sigv4';

// A loopback S3-compatible endpoint that checks the signature of what it is sent.
describe('S3 media store', () => {
  const received: { req: IncomingMessage; body: Buffer }[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ req, body: Buffer.concat(chunks) });
      res.writeHead(status).end(status === 200 ? '' : '<Error><Code>AccessDenied</Code></Error>');
    });
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const store = () => new S3MediaStore({ url: `${base}/media-bucket/`, accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', region: 'eu-west-1', timeoutMs: 2000 });
  const org = '0b7c6f2e-8f5c-4c53-9a55-3d4f2a1b0c9d';

  it('should PUT the object under media/<organization>/<sha256>.<ext> with a valid SigV4 signature', async () => {
    const bytes = Buffer.from('not really a png');
    const url = await store().put(org, bytes, 'image/png');
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(url).toBe(`${base}/media-bucket/media/${org}/${sha}.png`);
    const { req, body } = received[0];
    expect(req.method).toBe('PUT');
    expect(body.equals(bytes)).toBe(true);
    expect(req.headers['x-amz-content-sha256']).toBe(sha256Hex(bytes));
    const headers = { host: req.headers.host!, 'content-type': req.headers['content-type']!, 'x-amz-content-sha256': req.headers['x-amz-content-sha256'] as string, 'x-amz-date': req.headers['x-amz-date'] as string };
    const expected = signV4({ method: 'PUT', url: new URL(`${base}${req.url}`), headers, payloadHash: sha256Hex(body), accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', region: 'eu-west-1', amzDate: headers['x-amz-date'] });
    expect(req.headers.authorization).toBe(expected);
    expect(req.headers.authorization).toContain('/eu-west-1/s3/aws4_request,SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date,');
  });

  it('should report a refusal of the storage clearly', async () => {
    status = 403;
    await expect(store().put(org, Buffer.from('x'), 'image/jpeg')).rejects.toThrow('media storage answered 403: <Error><Code>AccessDenied</Code></Error>');
    status = 200;
  });
});
