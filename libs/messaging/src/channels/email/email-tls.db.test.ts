import { rmSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { EmailMailboxReader } from './email-mailbox';
import { emailChannel, type EmailTestApp, startEmailTestApp } from '../../testing/email-test-channel';
import { composeMail, deliver, folderMails, SmtpCapture } from '../../testing/mail-peers';
import { type DovecotVariant, selfSignedCertificate, startDovecotVariant } from '../../testing/mail-variants';

// The email channel over TLS against servers with a self-signed certificate made here: IMAP with
// implicit TLS and with STARTTLS (Dovecot), SMTP with implicit TLS and with STARTTLS (smtp-server).
// The certificate is trusted only where the account names it in tls_ca.
const certificate = selfSignedCertificate();
const smtpTls = new SmtpCapture('smtp-user', 'smtp-tls-secret', { key: certificate.key, cert: certificate.cert, secure: true });
const smtpStartTls = new SmtpCapture('smtp-user', 'smtp-starttls-secret', { key: certificate.key, cert: certificate.cert, secure: false });
let dovecot: DovecotVariant;
let app: NestFastifyApplication;
let close: () => Promise<void>;
let query: EmailTestApp['rows'];

beforeAll(async () => {
  dovecot = await startDovecotVariant({ tls: certificate });
  await smtpTls.start();
  await smtpStartTls.start();
  ({ app, close, rows: query } = await startEmailTestApp());
});
afterAll(async () => {
  await close();
  await smtpTls.stop();
  await smtpStartTls.stop();
  dovecot.stop();
  rmSync(certificate.dir, { recursive: true, force: true });
});

const ca = certificate.cert;
const rows = <T = Record<string, unknown>>(t: TestTenant, sql: string) => query<T>(t, sql);
const check = async (t: TestTenant, id: string) =>
  (await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${id}/test`, headers: t.key })).json();
// The Dovecot login lines of a user: ", TLS," marks a session over TLS.
const logins = (user: string) =>
  dovecot
    .log()
    .split('\n')
    .filter((line) => line.includes('Login: ') && line.includes(`user=<${user}>`));

async function roundTrip(box: Awaited<ReturnType<typeof emailChannel>>, smtp: SmtpCapture) {
  expect(await check(box.t, box.id)).toEqual({ ok: true });
  const messageId = `<tls-${box.user}@customer.test>`;
  const mail = await composeMail({ from: 'tls@customer.test', to: box.address, subject: 'Over TLS', messageId, text: 'encrypted' });
  await deliver(dovecot, box.user, box.password, [mail]);
  expect(await app.get(EmailMailboxReader).read(box.t.ctx.organizationId, box.id)).toEqual({ outcome: 'read', stored: 1, duplicates: 0 });
  const [conversation] = await rows<{ id: string }>(box.t, 'SELECT id FROM conversations');
  const url = `/functions/v1/messaging/conversations/${conversation.id}/reply`;
  const res = await app.inject({ method: 'POST', url, headers: box.t.key, payload: { message: `answer to ${box.user}` } });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ success: true, result: { sent_copy: 'appended' } });
  const sent = smtp.received.filter((m) => m.parsed.text?.trim() === `answer to ${box.user}`);
  expect(sent.map((m) => m.secure)).toEqual([true]);
  expect((await folderMails(dovecot, box.user, box.password, 'Sent')).map((m) => m.text?.trim())).toEqual([`answer to ${box.user}`]);
  // Every login of the channel (test, read, sent copy) and of the test's own clients was over TLS.
  expect(logins(box.user).length).toBeGreaterThanOrEqual(4);
  expect(logins(box.user).filter((line) => !line.includes(', TLS,'))).toEqual([]);
}

describe('email over TLS with a certificate the account trusts (tls_ca)', () => {
  it('should test, read, send and file the sent copy over implicit TLS (IMAP 993-style, SMTP 465-style)', async () => {
    const box = await emailChannel(app, dovecot, smtpTls, undefined, {
      imap: { port: dovecot.imapsPort, secure: true, tls_ca: ca },
      smtp: { secure: true, tls_ca: ca },
    });
    expect(box.created.json().email).toMatchObject({ imap: { secure: true, tls_ca: ca }, smtp: { secure: true, tls_ca: ca } });
    await roundTrip(box, smtpTls);
  });

  it('should test, read, send and file the sent copy over STARTTLS on both', async () => {
    const box = await emailChannel(app, dovecot, smtpStartTls, undefined, { imap: { tls_ca: ca }, smtp: { tls_ca: ca } });
    await roundTrip(box, smtpStartTls);
  });
});

describe('email over TLS with a certificate nobody trusts', () => {
  it('should refuse a self-signed IMAP certificate, implicit or by STARTTLS', async () => {
    const implicit = await emailChannel(app, dovecot, smtpTls, undefined, {
      imap: { port: dovecot.imapsPort, secure: true },
      smtp: { secure: true, tls_ca: ca },
    });
    expect(await check(implicit.t, implicit.id)).toEqual({ ok: false, error: expect.stringMatching(/^IMAP: .*self-signed certificate/) });
    const upgraded = await emailChannel(app, dovecot, smtpStartTls, undefined, { smtp: { tls_ca: ca } });
    expect(await check(upgraded.t, upgraded.id)).toEqual({ ok: false, error: expect.stringMatching(/^IMAP: .*self-signed certificate/) });
    const run = await app.get(EmailMailboxReader).read(upgraded.t.ctx.organizationId, upgraded.id);
    expect(run.error).toMatch(/self-signed certificate/);
    expect(logins(implicit.user)).toEqual([]);
    expect(logins(upgraded.user)).toEqual([]);
  });

  it('should refuse a self-signed SMTP certificate, implicit or by STARTTLS, and fail the send with the reason', async () => {
    for (const [smtp, secure] of [
      [smtpTls, true],
      [smtpStartTls, false],
    ] as const) {
      const box = await emailChannel(app, dovecot, smtp, undefined, { imap: { tls_ca: ca }, smtp: { secure } });
      expect(await check(box.t, box.id)).toEqual({ ok: false, error: expect.stringMatching(/^SMTP: .*self-signed certificate/) });
      const mail = await composeMail({ from: 'c@customer.test', to: box.address, subject: 'Hi', messageId: `<s-${box.user}@customer.test>`, text: 'hi' });
      await deliver(dovecot, box.user, box.password, [mail]);
      await app.get(EmailMailboxReader).read(box.t.ctx.organizationId, box.id);
      const [conversation] = await rows<{ id: string }>(box.t, 'SELECT id FROM conversations');
      const url = `/functions/v1/messaging/conversations/${conversation.id}/reply`;
      const res = await app.inject({ method: 'POST', url, headers: box.t.key, payload: { message: 'not over an untrusted TLS' } });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ code: 'provider_error', error: expect.stringMatching(/^Email not sent: .*self-signed certificate/) });
      expect(await rows(box.t, `SELECT status FROM messages WHERE direction = 'OUTBOUND'`)).toEqual([{ status: 'FAILED' }]);
      expect(smtp.received.filter((m) => m.parsed.text?.trim() === 'not over an untrusted TLS')).toEqual([]);
    }
  });

  it('should still vet the host of a TLS connection on every connection', async () => {
    const box = await emailChannel(app, dovecot, smtpTls, undefined, {
      imap: { port: dovecot.imapsPort, secure: true, tls_ca: ca },
      smtp: { secure: true, tls_ca: ca },
    });
    await rows(box.t, `UPDATE channel_accounts SET email_settings = jsonb_set(email_settings, '{imap,host}', '"localhost"')`);
    expect(await check(box.t, box.id)).toEqual({ ok: false, error: expect.stringMatching(/localhost refused: .*non-public address/) });
  });

  it('should refuse a tls_ca that is not PEM certificates with a 400 naming the field', async () => {
    const t = await createTestTenant(app);
    const { payload } = await emailChannel(app, dovecot, smtpTls, t);
    const bad = [
      ['imap', 'not a certificate'],
      ['smtp', 42],
      ['imap', certificate.key],
      ['smtp', `${ca}\nsomething else`],
      ['imap', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'],
      ['smtp', ca.repeat(11)],
    ] as const;
    for (const [endpoint, tlsCa] of bad) {
      const body = { ...payload, address: `other-${endpoint}@shop.test`, [endpoint]: { ...payload[endpoint], tls_ca: tlsCa } };
      const res = await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload: body });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_failed', error: expect.stringContaining(`${endpoint}.tls_ca must be 1 to 10 PEM certificates`) });
      expect(res.body).not.toContain('PRIVATE KEY');
    }
  });
});
