import { lookup as dnsLookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type ConnectionOptions, createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { bareHost, isBlockedAddress, normalHost } from './outbound-address';

export type OutboundErrorCode = 'invalid_url' | 'not_https' | 'ip_literal' | 'private_address' | 'dns_failed' | 'timeout' | 'network';

// Why an outbound call was refused or failed; `code` is stable, the message says what to change.
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }

  // Refusals by policy, as opposed to a peer that could not be reached.
  get blocked(): boolean {
    return ['invalid_url', 'not_https', 'ip_literal', 'private_address'].includes(this.code);
  }
}

export interface OutboundClientOptions {
  // Hosts (names or IP literals, as written in the URL) exempt from the address checks: OUTBOUND_ALLOW_HOSTS.
  allowHosts?: readonly string[];
  // Allow-listed hosts that may also be called over plain http (local tools); https stays required elsewhere.
  allowHttpForAllowedHosts?: boolean;
  // Plain http to any host that passes the address checks (inbound media, whose addresses come from
  // the provider and may be http). The checks and pinning are the same; only TLS is not required.
  allowHttp?: boolean;
  timeoutMs?: number;
  maxBodyBytes?: number;
  // Extra trusted CA certificates (PEM), added to Node's own roots.
  extraCa?: string;
  // Reuse connections (per host, port and checked address); default true. Every request is still
  // resolved and checked first, so a reused connection only ever goes to an address that passed.
  keepAlive?: boolean;
  // Idle kept-alive connections held per (host, port, checked address); default 16. Past it, a
  // connection freed by a burst is closed and the next request pays a new TLS handshake: a caller
  // with many requests in flight to one host (webhook deliveries) raises it to its concurrency.
  maxFreeSockets?: number;
  // DNS, replaceable in tests; default: the system resolver (all addresses).
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  // This request's body cap, instead of the client's (e.g. 16 MiB for media downloads).
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  // At most maxBodyBytes; the rest is never read.
  body: Buffer;
  truncated: boolean;
}

// An answer whose body is read as it arrives (large downloads): the caller reads or destroys `body`,
// caps its size and says why when over; the deadline still covers the whole exchange.
export interface OutboundStream {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

export const OUTBOUND_DEFAULT_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_BODY_BYTES = 64 * 1024;

interface Target {
  url: URL;
  host: string;
  allowed: boolean;
}

// The one client for calls to addresses users configure (webhooks, provider endpoints): https only,
// no private/loopback/link-local/multicast/IP-literal targets unless allow-listed, DNS resolved once
// and the connection pinned to the checked address (no rebinding between check and connect), a
// deadline over the whole exchange, a capped body read, and redirects never followed.
export class OutboundClient {
  private readonly allowHosts: Set<string>;
  // Built once: a context with extra roots is costly to create per connection.
  // Made at the first https call (adding the CAs costs tens of milliseconds per client at boot).
  private secureContextMade: SecureContext | undefined;
  private readonly agents = new Map<string, HttpAgent>();

  constructor(private readonly options: OutboundClientOptions = {}) {
    this.allowHosts = new Set((options.allowHosts ?? []).map(normalHost));
  }

  private get secureContext(): SecureContext | undefined {
    if (!this.options.extraCa) return undefined;
    this.secureContextMade ??= createSecureContext({ ca: [...rootCertificates, this.options.extraCa] });
    return this.secureContextMade;
  }

  // The checks that need no DNS (scheme, credentials, IP literals): a first pass over an address.
  check(rawUrl: string): void {
    this.target(rawUrl);
  }

  // The checks a request makes before connecting, DNS included, without connecting: for an
  // address stored now and called later (a webhook URL, a mail server, a customer's AI address, a
  // recording's URL), so that a name resolving to loopback or a private address (`localhost`, a
  // name in /etc/hosts) is refused when it is saved, by the same rules. A name that does not
  // resolve is refused too (`dns_failed`). Answers the address that passed.
  async vet(rawUrl: string): Promise<{ address: string; family: number }> {
    return this.pin(this.target(rawUrl));
  }

  async request(input: OutboundRequest): Promise<OutboundResponse> {
    const maxBody = input.maxBodyBytes ?? this.options.maxBodyBytes ?? OUTBOUND_MAX_BODY_BYTES;
    const { body: res, host } = await this.open(input);
    return new Promise<OutboundResponse>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).subarray(0, maxBody), truncated });
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size > maxBody) {
          truncated = true;
          res.destroy();
          finish();
        }
      });
      res.on('end', finish);
      res.on('error', (error) => {
        if (!truncated) reject(error instanceof OutboundError ? error : new OutboundError('network', `${host}: ${error.message}`));
      });
    });
  }

  // The same checks, pinning and deadline as request(), answered as soon as the headers arrive.
  async stream(input: OutboundRequest): Promise<OutboundStream> {
    const { body } = await this.open(input);
    return { status: body.statusCode ?? 0, headers: body.headers, body };
  }

  private async open(input: OutboundRequest): Promise<{ body: IncomingMessage; host: string }> {
    const target = this.target(input.url);
    const address = await this.pin(target);
    const timeoutMs = input.timeoutMs ?? this.options.timeoutMs ?? OUTBOUND_DEFAULT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const pinned: LookupFunction = (_host, options, callback) => {
        if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
        else callback(null, address.address, address.family);
      };
      // secureContext reaches tls.connect (the typings of https.request omit it).
      const options: HttpsRequestOptions & Pick<ConnectionOptions, 'secureContext'> = {
        method: input.method ?? 'POST',
        headers: input.headers,
        lookup: pinned,
        agent: this.agentFor(target, address.address),
        secureContext: this.secureContext,
        servername: isIP(target.host) ? undefined : target.host,
      };
      const req = target.url.protocol === 'https:' ? httpsRequest(target.url, options) : httpRequest(target.url, options);
      let response: IncomingMessage | undefined;
      // Over the whole exchange: a body still arriving at the deadline fails with the same error.
      const timer = setTimeout(() => {
        const error = new OutboundError('timeout', `no complete answer from ${target.url.host} within ${timeoutMs} ms`);
        response?.destroy(error);
        req.destroy(error);
      }, timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof OutboundError ? error : new OutboundError('network', `${target.url.host}: ${error.message}`));
      });
      req.on('response', (res) => {
        response = res;
        res.on('close', () => clearTimeout(timer));
        resolve({ body: res, host: target.url.host });
      });
      req.end(input.body);
    });
  }

  // Keep-alive agents keyed by scheme, host, port and pinned address; the oldest is dropped past 256.
  private agentFor(target: Target, address: string): HttpAgent | false {
    if (this.options.keepAlive === false) return false;
    const key = `${target.url.protocol}//${target.host}:${target.url.port}@${address}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options = { keepAlive: true, maxFreeSockets: this.options.maxFreeSockets ?? 16, timeout: 30_000 };
      agent = target.url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
      this.agents.set(key, agent);
      if (this.agents.size > 256) {
        const [oldestKey, oldest] = this.agents.entries().next().value as [string, HttpAgent];
        this.agents.delete(oldestKey);
        oldest.destroy();
      }
    }
    return agent;
  }

  // Closes idle kept-alive connections (shutdown, tests).
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private target(rawUrl: string): Target {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new OutboundError('invalid_url', `not a valid URL: ${String(rawUrl).slice(0, 200)}`);
    }
    const host = bareHost(url);
    const allowed = this.allowHosts.has(host);
    if (url.username || url.password) throw new OutboundError('invalid_url', 'URLs with credentials are not allowed');
    const httpAllowed = url.protocol === 'http:' && (this.options.allowHttp === true || (allowed && this.options.allowHttpForAllowedHosts === true));
    if (url.protocol !== 'https:' && !httpAllowed) {
      const allowedSchemes = this.options.allowHttp ? 'http:// and https://' : 'https://';
      throw new OutboundError('not_https', `only ${allowedSchemes} addresses are allowed, got ${url.protocol}//`);
    }
    if (isIP(host) !== 0 && !allowed) throw new OutboundError('ip_literal', `IP address targets are not allowed (${host}); use a host name`);
    return { url, host, allowed };
  }

  // Resolves once; every address must be public unless the host is allow-listed. The first is used.
  private async pin(target: Target): Promise<{ address: string; family: number }> {
    const family = isIP(target.host);
    if (family !== 0) return { address: target.host, family };
    let addresses: { address: string; family: number }[];
    try {
      addresses = await (this.options.resolve ?? ((host) => dnsLookup(host, { all: true, order: 'ipv4first' })))(target.host);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new OutboundError('dns_failed', `${target.host} does not resolve (${reason})`);
    }
    if (addresses.length === 0) throw new OutboundError('dns_failed', `${target.host} does not resolve (no addresses)`);
    const blocked = addresses.find((a) => isBlockedAddress(a.address));
    if (blocked && !target.allowed) throw new OutboundError('private_address', `${target.host} resolves to a non-public address (${blocked.address})`);
    return addresses[0];
  }
}

// The client as the settings configure it: OUTBOUND_ALLOW_HOSTS, and NODE_EXTRA_CA_CERTS read here
// too so a certificate file named in the settings is trusted even when Node did not load it at start.
export function createOutboundClient(
  config: { OUTBOUND_ALLOW_HOSTS: readonly string[]; NODE_EXTRA_CA_CERTS?: string },
  options: OutboundClientOptions = {},
): OutboundClient {
  const extraCa = config.NODE_EXTRA_CA_CERTS ? readFileSync(config.NODE_EXTRA_CA_CERTS, 'utf8') : undefined;
  return new OutboundClient({ allowHosts: config.OUTBOUND_ALLOW_HOSTS, extraCa, ...options });
}
