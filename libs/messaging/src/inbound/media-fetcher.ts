import { OutboundClient, type OutboundClientOptions } from '@engage/platform';
import type { MediaFetcher } from './media-store.port';

const MAX_BYTES = 16 * 1024 * 1024;

// Downloads inbound media through the platform's SSRF-safe client: no private, loopback,
// link-local, CGNAT, multicast or IP-literal hosts unless in OUTBOUND_ALLOW_HOSTS, DNS resolved
// once and the connection pinned to the checked address (no rebinding between check and
// download), one deadline over the whole exchange, redirects not followed. Plain http is accepted
// (providers' media addresses may be http; the address checks are what protect us, and the bytes
// are re-hosted, never trusted). No keep-alive: media hosts are many and visited once.
export function createMediaFetcher(options: {
  allowHosts: readonly string[];
  timeoutMs: number;
  maxBytes?: number;
  resolve?: OutboundClientOptions['resolve'];
  extraCa?: string;
}): MediaFetcher {
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  const client = new OutboundClient({
    allowHosts: options.allowHosts,
    allowHttp: true,
    timeoutMs: options.timeoutMs,
    keepAlive: false,
    resolve: options.resolve,
    extraCa: options.extraCa,
  });
  return async (url) => {
    const response = await client.request({ url, method: 'GET', maxBodyBytes: maxBytes });
    if (response.status < 200 || response.status >= 300) throw new Error(`media download answered ${response.status}`);
    if (response.truncated) throw new Error(`media larger than ${maxBytes} bytes`);
    const contentType = response.headers['content-type'];
    return { bytes: response.body, contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream' };
  };
}
