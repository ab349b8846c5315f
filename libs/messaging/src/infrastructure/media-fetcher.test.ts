import { createMediaFetcher, isPrivateAddress } from './media-fetcher';

describe('media fetcher guard', () => {
  it('should class loopback, private, link-local, CGNAT and multicast addresses as private', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    }
    for (const a of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2a00:1450::1']) expect([a, isPrivateAddress(a)]).toEqual([a, false]);
  });

  it('should refuse private hosts and other schemes before any request', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: [], timeoutMs: 1000 });
    await expect(fetchMedia('http://127.0.0.1:1/x.png')).rejects.toThrow('private address');
    await expect(fetchMedia('http://[::1]:1/x.png')).rejects.toThrow('private address');
    await expect(fetchMedia('file:///etc/passwd')).rejects.toThrow('http(s)');
  });
});
