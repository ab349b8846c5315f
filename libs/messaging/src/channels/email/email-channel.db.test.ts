import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { SecretBox } from '@engage/platform';
import { installTestDns } from '@engage/platform/testing';
import { EmailMailboxReader } from './email-mailbox';
import { emailChannel, type EmailTestApp, startEmailTestApp } from '../../testing/email-test-channel';
import { composeMail, deliver, fileServer, folderMails, SmtpCapture, startDovecot } from '../../testing/mail-peers';

// Email channel setup, its test endpoint and replies, against a real Dovecot (IMAP) and a real SMTP server.
const dovecot = startDovecot();
const smtp = new SmtpCapture('smtp-user', 'smtp-secret-123');
let email: EmailTestApp;
let app: NestFastifyApplication;
let rows: EmailTestApp['rows'];
let files: Awaited<ReturnType<typeof fileServer>>;

// Public names (imap.example.com) resolve whether or not this machine has DNS: TEST_DNS.
let restoreDns: () => void;

beforeAll(async () => {
  restoreDns = installTestDns();
  await smtp.start();
  files = await fileServer({ '/invoice.pdf': { body: Buffer.from('%PDF-1.4 invoice'), type: 'application/pdf' } });
  email = await startEmailTestApp();
  ({ app, rows } = email);
});
afterAll(async () => {
  await email.close();
  await smtp.stop();
  await files.close();
  restoreDns();
});

type Payload = { message: { id: string; status: string; error: string | null }; reason?: string };
const events = (t: TestTenant, type: string) => email.events<Payload>(t, type);
const create = (headers: Record<string, string>, payload: object) =>
  app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers, payload });
const test = (headers: Record<string, string>, id: string) =>
  app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${id}/test`, headers });
const reply = (headers: Record<string, string>, id: string, payload: object) =>
  app.inject({ method: 'POST', url: `/functions/v1/messaging/conversations/${id}/reply`, headers, payload });

describe('email channel setup', () => {
  it('should store the settings with both passwords sealed, and never return them', async () => {
    const { t, id, created, payload } = await emailChannel(app, dovecot, smtp);
    const body = created.body;
    expect(body).not.toContain(payload.imap.password);
    expect(body).not.toContain(payload.smtp.password);
    expect(created.json()).toMatchObject({
      channel_account: { kind: 'email', external_account_id: payload.address },
      email: { address: payload.address, imap: { host: '127.0.0.1', port: dovecot.port, secure: false, user: payload.imap.user } },
    });
    expect(created.json().inbound_path).toBeUndefined();
    const [stored] = await rows<Record<string, string>>(
      t,
      'SELECT email_settings::text AS settings, imap_password_sealed, smtp_password_sealed FROM channel_accounts WHERE id = $1',
      [id],
    );
    for (const value of Object.values(stored)) {
      expect(value).not.toContain(payload.imap.password);
      expect(value).not.toContain(payload.smtp.password);
    }
    const listed = await app.inject({ method: 'GET', url: '/functions/v1/messaging/channel-accounts', headers: t.key });
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(payload.imap.password);
    expect(listed.body).not.toContain('sealed');
    const [mailbox] = await rows(t, 'SELECT last_uid FROM email_mailboxes WHERE channel_account_id = $1', [id]);
    expect(mailbox).toEqual({ last_uid: '0' });
  });

  it('should refuse bad setup fields with a 400 naming the field', async () => {
    const t = await createTestTenant(app);
    const imap = { host: 'imap.example.com', port: 993, secure: true, user: 'u', password: 'p' };
    const good = { kind: 'email', name: 'S', address: 'help@shop.test', imap, smtp: { ...imap, port: 465 } };
    const cases: Array<[object, string]> = [
      [{ ...good, address: undefined }, 'address'],
      [{ ...good, address: 'not-an-address' }, 'address'],
      [{ ...good, address: 42 }, 'address'],
      [{ ...good, address: `${'a'.repeat(250)}@x.test` }, 'address'],
      [{ ...good, imap: undefined }, 'imap'],
      [{ ...good, imap: 'imap.example.com' }, 'imap'],
      [{ ...good, imap: { ...imap, host: 'bad host!' } }, 'imap.host'],
      [{ ...good, imap: { ...imap, host: `${'h'.repeat(250)}.example.com` } }, 'imap.host'],
      [{ ...good, imap: { ...imap, port: '993' } }, 'imap.port'],
      [{ ...good, imap: { ...imap, port: 70000 } }, 'imap.port'],
      [{ ...good, smtp: { ...imap, secure: 'yes' } }, 'smtp.secure'],
      [{ ...good, smtp: { ...imap, user: '' } }, 'smtp.user'],
      [{ ...good, smtp: { ...imap, password: undefined } }, 'smtp.password'],
      [{ ...good, smtp: { ...imap, password: 'x'.repeat(1001) } }, 'smtp.password'],
      // Customer-given hosts follow the outbound rules: no IP literals outside OUTBOUND_ALLOW_HOSTS.
      [{ ...good, imap: { ...imap, host: '10.0.0.7' } }, 'imap.host'],
      [{ ...good, smtp: { ...imap, host: '169.254.169.254' } }, 'smtp.host'],
      // Names are resolved when stored (OUTBOUND_ALLOW_HOSTS is 127.0.0.1 here, not localhost).
      [{ ...good, imap: { ...imap, host: 'localhost' } }, 'imap.host refused: localhost resolves to a non-public address'],
      [{ ...good, imap: { ...imap, host: 'localhost.' } }, 'imap.host refused: localhost resolves to a non-public address'],
      [{ ...good, smtp: { ...imap, host: 'hosts-entry.test' } }, 'smtp.host refused: hosts-entry.test resolves to a non-public address (127.0.0.1)'],
      [{ ...good, smtp: { ...imap, host: 'intranet.internal.test' } }, 'smtp.host refused: intranet.internal.test resolves to a non-public address (10.0.0.5)'],
      [{ ...good, imap: { ...imap, host: 'mail.nowhere.invalid' } }, 'imap.host refused: mail.nowhere.invalid does not resolve'],
    ];
    for (const [payload, field] of cases) {
      const res = await create(t.key, payload);
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.json().error).toContain(field);
    }
    expect(await rows(t, `SELECT id FROM channel_accounts WHERE kind = 'email'`)).toEqual([]);
  });

  it("should refuse a mailbox already connected (409), members without the right role (403), and other organizations' ids (404)", async () => {
    const { t, id, payload } = await emailChannel(app, dovecot, smtp);
    const other = await createTestTenant(app);
    expect((await create(other.key, { ...payload, name: 'Again' })).statusCode).toBe(409);
    const agent = await memberHeaders(app, t, 'AGENT');
    expect((await create(agent, { ...payload, address: 'other@shop.test' })).statusCode).toBe(403);
    expect((await test(other.key, id)).statusCode).toBe(404);
    expect((await test(t.key, 'not-a-uuid')).statusCode).toBe(404);
    const patch = (headers: Record<string, string>, body: object) =>
      app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${id}`, headers, payload: body });
    expect((await patch(other.key, { is_active: false })).statusCode).toBe(404);
    expect((await patch(t.key, { is_active: 'no' })).statusCode).toBe(400);
    expect((await patch(t.key, {})).statusCode).toBe(400);
    const off = await patch(t.key, { is_active: false });
    expect(off.json()).toMatchObject({ id, is_active: false });
  });

  it('should test the stored credentials with a real IMAP login and SMTP handshake', async () => {
    const { t, id } = await emailChannel(app, dovecot, smtp);
    expect((await test(t.key, id)).json()).toEqual({ ok: true });
    await rows(t, `UPDATE channel_accounts SET imap_password_sealed = $2 WHERE id = $1`, [id, app.get(SecretBox).seal('wrong')]);
    const badImap = (await test(t.key, id)).json();
    expect(badImap.ok).toBe(false);
    expect(badImap.error).toMatch(/IMAP|login|auth/i);
    expect(badImap.error).not.toContain('wrong');
  });

  it('should report an SMTP login the server refuses', async () => {
    const { t, id } = await emailChannel(app, dovecot, smtp);
    await rows(t, `UPDATE channel_accounts SET smtp_password_sealed = $2 WHERE id = $1`, [id, app.get(SecretBox).seal('nope-nope')]);
    const res = (await test(t.key, id)).json();
    expect(res).toMatchObject({ ok: false });
    expect(res.error).toMatch(/^SMTP: .*(auth|Invalid)/i);
  });
});

describe('replying on an email conversation', () => {
  // A customer's first mail read from the mailbox: the conversation it opened.
  async function customerWrote() {
    const channel = await emailChannel(app, dovecot, smtp);
    const first = await composeMail({
      from: 'Sara Customer <sara@customer.test>',
      to: channel.address,
      subject: 'Order 42 is late',
      messageId: '<first-42@customer.test>',
      text: 'Where is it?',
    });
    await deliver(dovecot, channel.user, channel.password, [first]);
    await app.get(EmailMailboxReader).read(channel.t.ctx.organizationId, channel.id);
    const [conversation] = await rows<{ id: string; email_subject: string }>(channel.t, 'SELECT * FROM conversations');
    return { ...channel, conversation };
  }

  it("should send over SMTP with the thread's headers, subject and attachments, store it SENT and append the Sent copy", async () => {
    const { t, id, conversation, address, user, password } = await customerWrote();
    expect(conversation.email_subject).toBe('Order 42 is late');
    const res = await reply(t.key, conversation.id, { message: 'It ships today.', media_urls: [`${files.url}/invoice.pdf`] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, conversationId: conversation.id, result: { status: true, sent_copy: 'appended' } });
    const sent = smtp.received.find((m) => m.parsed.messageId === res.json().result.message_id)!;
    expect(sent.envelope).toEqual({ from: address, to: ['sara@customer.test'] });
    expect(sent.parsed.subject).toBe('Re: Order 42 is late');
    expect(sent.parsed.inReplyTo).toBe('<first-42@customer.test>');
    expect(sent.parsed.references).toBe('<first-42@customer.test>');
    expect(sent.parsed.text?.trim()).toBe('It ships today.');
    expect(sent.parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['invoice.pdf', '%PDF-1.4 invoice']]);
    const [message] = await rows<{ status: string; external_id: string; email_message_id: string; metadata: { sent_copy: string } }>(
      t,
      `SELECT * FROM messages WHERE direction = 'OUTBOUND'`,
    );
    const mid = sent.parsed.messageId;
    expect(message).toMatchObject({ status: 'SENT', external_id: mid, email_message_id: mid, metadata: { sent_copy: 'appended' }, origin: 'agent' });
    expect((await events(t, 'message.sent')).map((e) => e.payload.message.status)).toEqual(['SENT']);
    const copies = await folderMails(dovecot, user, password, 'Sent');
    expect(copies.map((m) => m.messageId)).toEqual([sent.parsed.messageId]);

    // The customer answers our mail (a new subject): it threads by In-Reply-To into the same conversation.
    const answer = await composeMail({
      from: 'sara@customer.test',
      to: address,
      subject: 'Thanks!',
      messageId: '<third@customer.test>',
      inReplyTo: sent.parsed.messageId,
      references: ['<first-42@customer.test>', sent.parsed.messageId!],
      text: 'Great',
    });
    await deliver(dovecot, user, password, [answer]);
    await app.get(EmailMailboxReader).read(t.ctx.organizationId, id);
    expect(await rows(t, 'SELECT conversation_id FROM messages WHERE direction = $1', ['INBOUND'])).toEqual([
      { conversation_id: conversation.id },
      { conversation_id: conversation.id },
    ]);

    // A second reply: References carry the whole chain; the agent's own subject is used.
    const again = await reply(t.key, conversation.id, { message: 'You are welcome', subject: 'About your order 42' });
    expect(again.statusCode).toBe(200);
    const second = smtp.received.find((m) => m.parsed.messageId === again.json().result.message_id)!;
    expect(second.parsed.subject).toBe('About your order 42');
    expect(second.parsed.inReplyTo).toBe('<third@customer.test>');
    expect(second.parsed.references).toEqual(['<first-42@customer.test>', sent.parsed.messageId, '<third@customer.test>']);
  });

  it('should store a send the SMTP server refuses as FAILED with message.failed and the reason, and answer 500', async () => {
    const { t, conversation } = await customerWrote();
    smtp.refuse = 'Mailbox unavailable';
    try {
      const res = await reply(t.key, conversation.id, { message: 'Hello?' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ code: 'provider_error' });
      expect(res.json().error).toMatch(/Email not sent: .*Mailbox unavailable/);
    } finally {
      smtp.refuse = null;
    }
    const [message] = await rows<{ status: string; error: string }>(t, `SELECT status, error FROM messages WHERE direction = 'OUTBOUND'`);
    expect(message.status).toBe('FAILED');
    expect(message.error).toMatch(/Mailbox unavailable/);
    const failed = await events(t, 'message.failed');
    expect(failed.map((e) => e.payload.message.error)).toEqual([message.error]);
  });

  it('should fail an attachment that may not be fetched without sending anything', async () => {
    const { t, conversation } = await customerWrote();
    const before = smtp.received.length;
    const res = await reply(t.key, conversation.id, { message: 'See attached', media_urls: ['http://10.1.2.3/secret.pdf'] });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toMatch(/attachment .* could not be fetched/);
    expect(smtp.received.length).toBe(before);
    expect((await events(t, 'message.failed')).length).toBe(1);
  });

  it('should refuse bad reply input with a 4xx', async () => {
    const { t, conversation } = await customerWrote();
    const other = await createTestTenant(app);
    const bad: Array<[Record<string, string>, string, object, number]> = [
      [t.key, conversation.id, {}, 400],
      [t.key, conversation.id, { message: 5 }, 400],
      [t.key, conversation.id, { message: 'x', subject: 7 }, 400],
      [t.key, conversation.id, { message: 'x', subject: '' }, 400],
      [t.key, conversation.id, { message: 'x', subject: 's'.repeat(999) }, 400],
      [t.key, conversation.id, { message: 'x', subject: 'Bcc: evil@x.test\r\nInjected' }, 400],
      [t.key, conversation.id, { message: 'x', media_urls: ['ftp://x'] }, 400],
      [t.key, conversation.id, { message: 'x'.repeat(5000) }, 400],
      [other.key, conversation.id, { message: 'x' }, 404],
      [t.key, 'not-a-uuid', { message: 'x' }, 400],
    ];
    for (const [headers, id, payload, status] of bad) expect({ payload, status: (await reply(headers, id, payload)).statusCode }).toEqual({ payload, status });
    // An inactive channel refuses before anything is stored.
    const [channel] = await rows<{ id: string }>(t, 'SELECT id FROM channel_accounts');
    await app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${channel.id}`, headers: t.key, payload: { is_active: false } });
    const inactive = await reply(t.key, conversation.id, { message: 'x' });
    expect(inactive.statusCode).toBe(422);
    expect(inactive.json().code).toBe('channel.inactive');
    expect(await rows(t, `SELECT id FROM messages WHERE direction = 'OUTBOUND'`)).toEqual([]);
  });
});
