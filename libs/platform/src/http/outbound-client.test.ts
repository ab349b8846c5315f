import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSelfSignedCert, type HttpsReceiver, type SelfSignedCert, startHttpsReceiver } from '../testing/https-receiver';
import { isBlockedAddress } from './outbound-address';
import { OutboundClient, OutboundError } from './outbound-client';

const refusal = async (promise: Promise<unknown>): Promise<OutboundError> => {
  try {
    await promise;
  } catch (error) {
    return error as OutboundError;
  }
  throw new Error('expected the call to be refused');
};

describe('isBlockedAddress', () => {
  it.each([
    ['10.0.0.1', true],
    ['127.0.0.1', true],
    ['169.254.169.254', true],
    ['172.16.5.4', true],
    ['192.168.1.1', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['2606:4700:4700::1111', false],
    ['not-an-ip', true],
  ])('%s -> %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });
});

describe('OutboundClient refuses unsafe targets', () => {
  const client = new OutboundClient({
    resolve: async (host) => (host === 'internal.example.com' ? [{ address: '10.1.2.3', family: 4 }] : [{ address: '93.184.215.14', family: 4 }]),
  });

  it.each([
    ['http://example.com/hook', 'not_https', 'only https://'],
    ['ftp://example.com/hook', 'not_https', 'only https://'],
    ['https://10.0.0.1/hook', 'ip_literal', 'IP address targets are not allowed'],
    ['https://127.0.0.1/hook', 'ip_literal', 'IP address targets are not allowed'],
    ['https://[::1]/hook', 'ip_literal', 'IP address targets are not allowed'],
    ['https://169.254.169.254/latest/meta-data', 'ip_literal', 'IP address targets are not allowed'],
    ['https://2130706433/hook', 'ip_literal', 'IP address targets are not allowed'],
    ['https://internal.example.com/hook', 'private_address', 'resolves to a non-public address (10.1.2.3)'],
    ['https://user:pw@example.com/hook', 'invalid_url', 'credentials'],
    ['not a url', 'invalid_url', 'not a valid URL'],
  ])('%s is refused (%s)', async (url, code, message) => {
    const error = await refusal(client.request({ url, body: '{}' }));
    expect(error).toBeInstanceOf(OutboundError);
    expect(error.code).toBe(code);
    expect(error.blocked).toBe(true);
    expect(error.message).toContain(message);
  });

  it('vets an address without connecting: the same refusals, and the checked address of a public host', async () => {
    await expect(client.vet('https://internal.example.com/a.mp3')).rejects.toMatchObject({ code: 'private_address' });
    await expect(client.vet('http://example.com/a.mp3')).rejects.toMatchObject({ code: 'not_https' });
    await expect(client.vet('https://example.com/a.mp3')).resolves.toEqual({ address: '93.184.215.14', family: 4 });
  });

  it('refuses localhost through the real resolver when it is not allow-listed', async () => {
    const error = await refusal(new OutboundClient().request({ url: 'https://localhost:1/hook' }));
    expect(error.code).toBe('private_address');
    expect(error.message).toMatch(/localhost resolves to a non-public address/);
  });

  it('reads a host with a trailing dot as the same host: refused as loopback by the real resolver, allow-listed by its plain name', async () => {
    const real = new OutboundClient();
    await expect(real.vet('https://localhost./hook')).rejects.toMatchObject({
      code: 'private_address',
      message: expect.stringMatching(/^localhost resolves to/),
    });
    await expect(real.vet('https://LOCALHOST.:8443/hook')).rejects.toMatchObject({ code: 'private_address' });
    await expect(real.vet('https://127.0.0.1./hook')).rejects.toMatchObject({ code: 'ip_literal' });
    const allowing = new OutboundClient({ allowHosts: ['127.0.0.1', 'localhost'] });
    await expect(allowing.vet('https://localhost./hook')).resolves.toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    // An allow-list entry written with the dot covers the plain name too.
    await expect(new OutboundClient({ allowHosts: ['localhost.'] }).vet('https://localhost/hook')).resolves.toBeDefined();
  });

  it('refuses every name whose addresses are not all public, whatever the name, and a name that does not resolve', async () => {
    const table: Record<string, { address: string; family: number }[]> = {
      'hosts-entry.example': [{ address: '127.0.0.1', family: 4 }],
      'v6-loopback.example': [{ address: '::1', family: 6 }],
      'mixed.example': [
        { address: '93.184.215.14', family: 4 },
        { address: '192.168.1.10', family: 4 },
      ],
      'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
    };
    const dns = new OutboundClient({
      resolve: async (host) => {
        if (host.endsWith('.invalid')) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return table[host] ?? [];
      },
    });
    for (const host of Object.keys(table)) await expect(dns.vet(`https://${host}./x`)).rejects.toMatchObject({ code: 'private_address' });
    await expect(dns.vet('https://nothing.invalid/x')).rejects.toMatchObject({ code: 'dns_failed', message: 'nothing.invalid does not resolve (ENOTFOUND)' });
    await expect(dns.vet('https://empty.example/x')).rejects.toMatchObject({ code: 'dns_failed', message: 'empty.example does not resolve (no addresses)' });
  });

  it('checks a URL without DNS for validation', () => {
    expect(() => client.check('https://hooks.example.com/x')).not.toThrow();
    expect(() => client.check('http://hooks.example.com/x')).toThrow(OutboundError);
  });
});

describe('OutboundClient against loopback peers', () => {
  let cert: SelfSignedCert;
  let receiver: HttpsReceiver;
  let client: OutboundClient;

  beforeAll(async () => {
    cert = createSelfSignedCert();
    receiver = await startHttpsReceiver(cert);
    client = new OutboundClient({ allowHosts: ['127.0.0.1', 'localhost'], extraCa: cert.cert, timeoutMs: 1500 });
  });
  afterAll(() => receiver.close());

  it('posts to an allow-listed https host and reads the answer', async () => {
    receiver.behave(() => ({ status: 201, body: 'created' }));
    const response = await client.request({ url: `${receiver.url}/in?x=1`, headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(response).toMatchObject({ status: 201, truncated: false });
    expect(response.body.toString()).toBe('created');
    const last = receiver.received.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', path: '/in?x=1', body: '{"a":1}' });
  });

  it('pins the connection to the address resolved once (a host name is connected through the checked address)', async () => {
    let lookups = 0;
    const pinned = new OutboundClient({
      allowHosts: ['localhost'],
      extraCa: cert.cert,
      resolve: async () => (lookups++, [{ address: '127.0.0.1', family: 4 }]),
    });
    receiver.behave(() => ({ status: 200, body: 'pinned' }));
    const response = await pinned.request({ url: `https://localhost:${receiver.port}/pin` });
    expect(response.body.toString()).toBe('pinned');
    expect(lookups).toBe(1);
  });

  it('refuses a certificate it does not trust', async () => {
    const untrusting = new OutboundClient({ allowHosts: ['127.0.0.1'] });
    const error = await refusal(untrusting.request({ url: `${receiver.url}/x` }));
    expect(error.code).toBe('network');
  });

  it('does not follow redirects', async () => {
    receiver.behave(() => ({ status: 302, headers: { location: 'https://169.254.169.254/latest' } }));
    const before = receiver.received.length;
    const response = await client.request({ url: `${receiver.url}/redirect` });
    expect(response.status).toBe(302);
    expect(receiver.received.length).toBe(before + 1);
  });

  it('reads at most 64 KiB of the answer', async () => {
    receiver.behave(() => ({ status: 200, body: 'x'.repeat(200 * 1024) }));
    const response = await client.request({ url: `${receiver.url}/big` });
    expect(response.truncated).toBe(true);
    expect(response.body.length).toBe(64 * 1024);
    // A caller may set its own cap per request (media downloads: 16 MiB).
    const larger = await client.request({ url: `${receiver.url}/big`, maxBodyBytes: 1024 * 1024 });
    expect(larger.truncated).toBe(false);
    expect(larger.body.length).toBe(200 * 1024);
  });

  it('gives up on a peer that never answers, with a timeout error', async () => {
    receiver.behave(() => undefined);
    const error = await refusal(client.request({ url: `${receiver.url}/hang`, timeoutMs: 300 }));
    expect(error.code).toBe('timeout');
    expect(error.blocked).toBe(false);
  });

  it('streams an answer with the same checks, and its deadline covers a body still arriving', async () => {
    expect((await refusal(new OutboundClient({ extraCa: cert.cert }).stream({ url: `${receiver.url}/s`, method: 'GET' }))).code).toBe('ip_literal');
    receiver.behave(() => ({ status: 200, body: 'y'.repeat(300 * 1024) }));
    const whole = await client.stream({ url: `${receiver.url}/s`, method: 'GET' });
    const chunks = await whole.body.toArray();
    expect([whole.status, Buffer.concat(chunks).length]).toEqual([200, 300 * 1024]);
    // Headers and a first piece, then nothing: the body fails with the timeout once the deadline passes.
    receiver.behave((_request, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' }).write('first piece');
      return undefined;
    });
    const stalled = await client.stream({ url: `${receiver.url}/stall`, method: 'GET', timeoutMs: 300 });
    expect(stalled.status).toBe(200);
    const error = await refusal(stalled.body.toArray());
    expect([error.code, error.blocked]).toEqual(['timeout', false]);
  });

  it('allows plain http only for allow-listed hosts when asked', async () => {
    const server = createHttpServer((_req, res) => res.end('plain'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect((await refusal(client.request({ url }))).code).toBe('not_https');
      const lax = new OutboundClient({ allowHosts: ['127.0.0.1'], allowHttpForAllowedHosts: true });
      expect((await lax.request({ url, method: 'GET' })).body.toString()).toBe('plain');
      // allowHttp: plain http to any host, still address-checked (a loopback literal is refused).
      const anyHttp = new OutboundClient({ allowHttp: true, keepAlive: false });
      expect((await refusal(anyHttp.request({ url }))).code).toBe('ip_literal');
      expect((await refusal(anyHttp.request({ url: 'ftp://files.example/x' }))).message).toContain('only http:// and https://');
      const anyHttpAllowed = new OutboundClient({ allowHosts: ['127.0.0.1'], allowHttp: true, keepAlive: false });
      expect((await anyHttpAllowed.request({ url, method: 'GET' })).body.toString()).toBe('plain');
    } finally {
      server.close();
    }
  });

  it('keeps every connection of a burst reusable up to maxFreeSockets (16 by default)', async () => {
    // Answers only once a whole burst has arrived, so all its connections are open and freed at once.
    const burst = 24;
    let held: (() => void)[] = [];
    let connections = 0;
    const server = createHttpServer((_req, res) => {
      held.push(() => res.end('ok'));
      if (held.length === burst) for (const answer of held.splice(0)) answer();
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const twoBursts = async (client: OutboundClient) => {
      connections = 0;
      held = [];
      for (let round = 0; round < 2; round++) await Promise.all(Array.from({ length: burst }, () => client.request({ url, method: 'GET' })));
      client.close();
      return connections;
    };
    try {
      expect(await twoBursts(new OutboundClient({ allowHosts: ['127.0.0.1'], allowHttpForAllowedHosts: true, maxFreeSockets: 32 }))).toBe(burst);
      // The default keeps 16 of the 24 idle connections: the second burst opens 8 new ones.
      expect(await twoBursts(new OutboundClient({ allowHosts: ['127.0.0.1'], allowHttpForAllowedHosts: true }))).toBe(burst + 8);
    } finally {
      server.close();
    }
  });
});
