import { X509Certificate } from 'node:crypto';
import { DomainError } from '@engage/shared-kernel';

const invalid = (message: string, field: string) => new DomainError('validation', 'validation_failed', message, { field });

export interface EmailEndpoint {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
  // PEM certificates trusted for this server's TLS besides the public CAs (a private or self-signed certificate).
  tls_ca?: string;
}

export interface EmailAccountInput {
  address: string;
  imap: EmailEndpoint;
  smtp: EmailEndpoint;
}

// A pragmatic address check (the servers decide the rest): local@domain, no spaces or angle brackets.
const ADDRESS = /^[^\s@<>()",;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
// A host name or an IPv4 address (whether it may be reached is the outbound vetting's decision).
const HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

export const isEmailAddress = (value: unknown): value is string => typeof value === 'string' && value.length <= 254 && ADDRESS.test(value);

// An email channel's setup fields; null for other kinds.
export function parseEmailAccount(kind: string, input: Record<string, unknown>): EmailAccountInput | null {
  if (kind !== 'email') return null;
  if (!isEmailAddress(input.address)) throw invalid("address is required: the mailbox's email address (at most 254 characters)", 'address');
  return { address: input.address.toLowerCase(), imap: endpoint('imap', input.imap), smtp: endpoint('smtp', input.smtp) };
}

function endpoint(name: 'imap' | 'smtp', raw: unknown): EmailEndpoint {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(`${name} is required: an object with host, port, secure, user and password (and tls_ca, optional)`, name);
  }
  const o = raw as Record<string, unknown>;
  if (typeof o.host !== 'string' || !HOST.test(o.host)) {
    throw invalid(`${name}.host must be a host name or IPv4 address (at most 253 characters)`, `${name}.host`);
  }
  if (typeof o.port !== 'number' || !Number.isInteger(o.port) || o.port < 1 || o.port > 65535) {
    throw invalid(`${name}.port must be an integer from 1 to 65535`, `${name}.port`);
  }
  if (typeof o.secure !== 'boolean') throw invalid(`${name}.secure must be true (TLS from the start) or false (STARTTLS when offered)`, `${name}.secure`);
  if (typeof o.user !== 'string' || o.user.length === 0 || o.user.length > 320 || /[\r\n\0]/.test(o.user)) {
    throw invalid(`${name}.user must be 1 to 320 characters`, `${name}.user`);
  }
  if (typeof o.password !== 'string' || o.password.length === 0 || o.password.length > 1000 || /[\r\n\0]/.test(o.password)) {
    throw invalid(`${name}.password must be 1 to 1000 characters`, `${name}.password`);
  }
  const tlsCa = o.tls_ca === undefined || o.tls_ca === null ? undefined : trustedCertificates(o.tls_ca, `${name}.tls_ca`);
  const host = o.host.toLowerCase().replace(/\.$/, '');
  return { host, port: o.port, secure: o.secure, user: o.user, password: o.password, ...(tlsCa ? { tls_ca: tlsCa } : {}) };
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/g;

// One to ten PEM certificates, each one a certificate Node can read; a private key or anything else is refused.
function trustedCertificates(raw: unknown, field: string): string {
  const refuse = () => invalid(`${field} must be 1 to 10 PEM certificates (-----BEGIN CERTIFICATE-----), at most 64 KiB`, field);
  if (typeof raw !== 'string' || raw.length > 65536) throw refuse();
  const blocks = raw.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0 || blocks.length > 10 || raw.replace(PEM_BLOCK, '').trim() !== '') throw refuse();
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw refuse();
    }
  }
  return `${blocks.join('\n')}\n`;
}
