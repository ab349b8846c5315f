import { isIP } from 'node:net';
import { getCACertificates } from 'node:tls';
import { ImapFlow } from 'imapflow';
import { createTransport, type Transporter } from 'nodemailer';
import { normalHost, OutboundError, type OutboundClient } from '@engage/platform';
import { DomainError } from '@engage/shared-kernel';
import type { EndpointSettings } from './email.sql';

// Connections to a customer's IMAP and SMTP servers. The hosts are the customer's, so each
// connection goes through the platform's outbound vetting first (no loopback, private, link-local
// or IP-literal targets unless OUTBOUND_ALLOW_HOSTS names the host; the name resolved once) and
// then to the address that passed, the name kept for TLS. Credentials travel only over TLS
// (implicit, or STARTTLS which is then required), except to allow-listed hosts (local servers).
export class EmailTransport {
  private readonly allowHosts: Set<string>;

  constructor(
    private readonly outbound: OutboundClient,
    allowHosts: readonly string[],
    private readonly timeoutMs: number,
  ) {
    this.allowHosts = new Set(allowHosts.map(normalHost));
  }

  // When the settings are stored: the checks of a connection, DNS included (a name resolving to
  // loopback or a private address, or not resolving, is refused then, not at the first
  // connection), as a clear 400 naming the field.
  async checkHost(host: string, field: string): Promise<void> {
    try {
      await this.outbound.vet(`https://${isIP(host) === 6 ? `[${host}]` : host}/`);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      throw new DomainError('validation', 'validation_failed', `${field} refused: ${error.message}`, { field });
    }
  }

  async imap(endpoint: EndpointSettings, password: string): Promise<ImapFlow> {
    const target = await this.vet(endpoint);
    const client = new ImapFlow({
      host: target.address,
      port: endpoint.port,
      secure: endpoint.secure,
      doSTARTTLS: endpoint.secure ? undefined : target.plaintextAllowed ? undefined : true,
      servername: target.servername,
      auth: { user: endpoint.user, pass: password },
      logger: false,
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: Math.max(this.timeoutMs, 5 * 60_000),
      tls: tlsOptions(endpoint, target.servername),
      emitLogs: false,
    });
    // An error event without a listener would take the process down; failures surface on the calls.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      throw new EmailConnectionError(`IMAP: ${describe(error)}`);
    }
    return client;
  }

  async smtp(endpoint: EndpointSettings, password: string): Promise<Transporter> {
    const target = await this.vet(endpoint);
    return createTransport({
      host: target.address,
      port: endpoint.port,
      secure: endpoint.secure,
      requireTLS: !endpoint.secure && !target.plaintextAllowed,
      ignoreTLS: false,
      auth: { user: endpoint.user, pass: password },
      tls: tlsOptions(endpoint, target.servername),
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      logger: false,
      debug: false,
    });
  }

  // A real IMAP login and an SMTP handshake with authentication (onboarding's "test").
  async check(imap: EndpointSettings, imapPassword: string, smtp: EndpointSettings, smtpPassword: string): Promise<{ ok: boolean; error?: string }> {
    try {
      const client = await this.imap(imap, imapPassword);
      await client.logout().catch(() => undefined);
    } catch (error) {
      return { ok: false, error: describe(error) };
    }
    try {
      const transporter = await this.smtp(smtp, smtpPassword);
      try {
        await transporter.verify();
      } finally {
        transporter.close();
      }
    } catch (error) {
      return { ok: false, error: `SMTP: ${describe(error)}` };
    }
    return { ok: true };
  }

  private async vet(endpoint: EndpointSettings): Promise<{ address: string; servername: string | undefined; plaintextAllowed: boolean }> {
    try {
      const { address } = await this.outbound.vet(`https://${isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}/`);
      const plaintextAllowed = this.allowHosts.has(normalHost(endpoint.host));
      return { address, servername: isIP(endpoint.host) ? undefined : endpoint.host, plaintextAllowed };
    } catch (error) {
      if (error instanceof OutboundError) throw new EmailConnectionError(`${endpoint.host} refused: ${error.message}`);
      throw error;
    }
  }
}

// Certificates are always verified. An account's tls_ca is trusted on top of the installation's CAs
// (Node's defaults, with NODE_EXTRA_CA_CERTS), for a server with a private or self-signed certificate.
function tlsOptions(endpoint: EndpointSettings, servername: string | undefined) {
  return { servername, rejectUnauthorized: true, ...(endpoint.tls_ca ? { ca: [...getCACertificates('default'), endpoint.tls_ca] } : {}) };
}

export class EmailConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmailConnectionError';
  }
}

// A server's answer in words, never the credentials (neither library puts them in its errors).
export function describe(error: unknown): string {
  const e = error as { message?: string; responseText?: string; response?: string; authenticationFailed?: boolean; code?: string };
  if (e?.authenticationFailed) return `login failed${e.responseText ? `: ${e.responseText}` : ''}`;
  const text = e?.responseText ?? e?.response ?? e?.message ?? String(error);
  return String(text).slice(0, 500);
}
