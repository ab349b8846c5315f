import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundError } from '@engage/platform';
import { createMediaFetcher } from './media-fetcher';

// The fetcher goes through the platform's OutboundClient: its refusals are OutboundErrors.
describe('media fetcher', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/pic.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64, 1));
      else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(4096, 1));
      else if (req.url === '/moved') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutboundError);
    return (error as OutboundError).code;
  };

  it('should refuse loopback, private, link-local, IP-literal and privately resolving hosts and other schemes before any request', async () => {
    const fetchMedia = createMediaFetcher({
      allowHosts: [],
      timeoutMs: 1000,
      resolve: async (host) => [{ address: host === 'inside.example' ? '10.0.0.7' : '93.184.216.34', family: 4 }],
    });
    for (const url of ['http://127.0.0.1:1/x.png', 'http://[::1]:1/x.png', 'http://169.254.169.254/latest', 'https://10.0.0.1/x.png'])
      expect([url, await refusal(fetchMedia(url))]).toEqual([url, 'ip_literal']);
    expect(await refusal(fetchMedia('https://inside.example/x.png'))).toBe('private_address');
    expect(await refusal(fetchMedia('file:///etc/passwd'))).toBe('not_https');
    expect(await refusal(fetchMedia('ftp://files.example/x.png'))).toBe('not_https');
  });

  it('should download over http from an allowed host, and refuse redirects, errors and oversized bodies', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'], timeoutMs: 2000, maxBytes: 1024 });
    await expect(fetchMedia(`${base}/pic.png`)).resolves.toEqual({ bytes: Buffer.alloc(64, 1), contentType: 'image/png' });
    await expect(fetchMedia(`${base}/moved`)).rejects.toThrow('media download answered 302');
    await expect(fetchMedia(`${base}/missing`)).rejects.toThrow('media download answered 404');
    await expect(fetchMedia(`${base}/big`)).rejects.toThrow('media larger than 1024 bytes');
  });
});
