import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { MediaFetcher } from '../application/media-store.port';

const MAX_BYTES = 16 * 1024 * 1024;

// Loopback, private, link-local, CGNAT, unspecified and multicast ranges: never fetched on a
// payload's word (server-side request forgery), unless the host is in OUTBOUND_ALLOW_HOSTS.
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 6) {
    const a = address.toLowerCase();
    if (a.startsWith('::ffff:')) return isPrivateAddress(a.slice(7));
    return a === '::' || a === '::1' || a.startsWith('fc') || a.startsWith('fd') || a.startsWith('fe80') || a.startsWith('ff');
  }
  const [x, y] = address.split('.').map(Number);
  return x === 0 || x === 10 || x === 127 || (x === 100 && y >= 64 && y <= 127) || (x === 169 && y === 254) || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168) || x >= 224;
}

export function createMediaFetcher(options: { allowHosts: readonly string[]; timeoutMs: number; maxBytes?: number }): MediaFetcher {
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  return async (url) => {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('media address must be http(s)');
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowHosts.includes(host)) {
      const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
      if (addresses.some(isPrivateAddress)) throw new Error(`media host ${host} resolves to a private address`);
    }
    // Redirects are not followed: their target would escape the check above.
    const response = await fetch(parsed, { redirect: 'error', signal: AbortSignal.timeout(options.timeoutMs) });
    if (!response.ok) throw new Error(`media download answered ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) throw new Error(`media larger than ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += (chunk as Uint8Array).length;
      if (size > maxBytes) throw new Error(`media larger than ${maxBytes} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return { bytes: Buffer.concat(chunks), contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
  };
}
