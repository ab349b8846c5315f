import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startTestApp } from '@engage/platform/testing';
import { messagingMigrations } from '../index';
import { MessagingModule } from '../messaging.module';
import type { SmtpCapture } from './mail-peers';
import { tenantQueries } from './tenant-queries';

// The messaging context in an api process that may reach mail servers on 127.0.0.1 (outbound rules)
// and reads a mailbox without waiting in IDLE unless env says otherwise, with the shared queries.
export async function startEmailTestApp(env: Record<string, string> = {}) {
  const started = await startTestApp([MessagingModule], {
    role: 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', EMAIL_IDLE_MS: '0', ...env },
  });
  return { ...started, ...tenantQueries(started.runtime) };
}

export type EmailTestApp = Awaited<ReturnType<typeof startEmailTestApp>>;

export type Dovecot = { host: string; port: number; addUser: (user: string, password: string) => void };
type Overrides = { imap?: { port?: number; secure?: boolean; tls_ca?: string }; smtp?: { secure?: boolean; tls_ca?: string } };

// A new organization with an email channel on a new Dovecot mailbox and the given SMTP server
// (plaintext unless overridden: ports, secure, tls_ca).
export async function emailChannel(app: NestFastifyApplication, dovecot: Dovecot, smtp: SmtpCapture, tenant?: TestTenant, overrides: Overrides = {}) {
  const t = tenant ?? (await createTestTenant(app));
  const user = `box-${randomUUID().slice(0, 12)}`;
  const password = `pw-${randomUUID()}`;
  dovecot.addUser(user, password);
  const address = `${user}@shop.test`;
  const payload = {
    kind: 'email',
    name: 'Support',
    address,
    imap: { host: dovecot.host, port: dovecot.port, secure: false, user, password, ...overrides.imap },
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: smtp.user, password: smtp.password, ...overrides.smtp },
  };
  const created = await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload });
  if (created.statusCode !== 201) throw new Error(`email channel not created: ${created.statusCode} ${created.body}`);
  const id: string = created.json().channel_account.id;
  return { t, id, user, password, address, payload, created };
}
