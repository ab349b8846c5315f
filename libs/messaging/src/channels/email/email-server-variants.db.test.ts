import { ImapFlow } from 'imapflow';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type pino from 'pino';
import type { TestTenant } from '@engage/identity/testing';
import { PLATFORM_LOG } from '@engage/platform';
import { emailChannel, type EmailTestApp, startEmailTestApp } from '../../testing/email-test-channel';
import { composeMail, createFolder, deliver, folderMails, SmtpCapture } from '../../testing/mail-peers';
import { CAPABILITY_WITHOUT_IDLE, type DovecotVariant, startDovecotVariant } from '../../testing/mail-variants';
import { EmailMailboxJob, EmailPollTick } from './email-jobs';
import { EmailMailboxReader } from './email-mailbox';

// A plainer IMAP server than the shared one: no IDLE (read by polling) and no folder marked \Sent
// (the sent copy goes to a folder named like one, or is skipped).
const smtp = new SmtpCapture('smtp-user', 'smtp-secret-789');
let dovecot: DovecotVariant;
let app: NestFastifyApplication;
let close: () => Promise<void>;
let rows: EmailTestApp['rows'];

beforeAll(async () => {
  dovecot = await startDovecotVariant({ capability: CAPABILITY_WITHOUT_IDLE, sent: 'none' });
  await smtp.start();
  // IDLE would hold a run for a minute: this server must be read without it.
  ({ app, close, rows } = await startEmailTestApp({ EMAIL_IDLE_MS: '60000' }));
});
afterAll(async () => {
  await close();
  await smtp.stop();
  dovecot.stop();
});

const contents = async (t: TestTenant) =>
  (await rows<{ content: string }>(t, `SELECT content FROM messages WHERE direction = 'INBOUND' ORDER BY created_at, id`)).map((m) => m.content);
const mail = (box: { address: string }, n: number) =>
  composeMail({ from: 'poll@customer.test', to: box.address, subject: `Polled ${n}`, messageId: `<poll-${n}-${box.address}>`, text: `mail ${n}` });

async function capabilities(user: string, password: string): Promise<Set<string>> {
  const client = new ImapFlow({ host: dovecot.host, port: dovecot.port, secure: false, auth: { user, pass: password }, logger: false });
  await client.connect();
  try {
    return new Set(client.capabilities.keys());
  } finally {
    await client.logout();
  }
}

describe('an IMAP server without IDLE', () => {
  it('should be read by polling: each scheduled run catches up and ends instead of waiting in IDLE', async () => {
    const box = await emailChannel(app, dovecot, smtp);
    expect(await capabilities(box.user, box.password)).not.toContain('IDLE');
    await deliver(dovecot, box.user, box.password, [await mail(box, 1)]);
    // As the job runner runs it: the tick queues the mailbox's run, the run reads it (EMAIL_IDLE_MS is a minute, unused here).
    const job = { id: '1', name: 'messaging.email-mailbox', attempt: 1, organizationId: box.t.ctx.organizationId };
    expect(await app.get(EmailPollTick).handle()).toBeGreaterThanOrEqual(1);
    expect(await app.get(EmailMailboxJob).handle({ channelAccountId: box.id }, job)).toEqual({ outcome: 'read', stored: 1, duplicates: 0 });
    expect(await contents(box.t)).toEqual(['mail 1']);
    // Mail that arrives between runs is read by the next poll, once.
    await deliver(dovecot, box.user, box.password, [await mail(box, 2), await mail(box, 3)]);
    expect(await app.get(EmailPollTick).handle()).toBeGreaterThanOrEqual(1);
    expect(await app.get(EmailMailboxJob).handle({ channelAccountId: box.id }, job)).toEqual({ outcome: 'read', stored: 2, duplicates: 0 });
    expect(await app.get(EmailMailboxReader).read(box.t.ctx.organizationId, box.id)).toEqual({ outcome: 'read', stored: 0, duplicates: 0 });
    expect(await contents(box.t)).toEqual(['mail 1', 'mail 2', 'mail 3']);
    expect(await rows(box.t, 'SELECT last_uid FROM email_mailboxes')).toEqual([{ last_uid: '3' }]);
  });
});

describe('the sent copy on a server without a \\Sent folder', () => {
  async function conversationOf(box: Awaited<ReturnType<typeof emailChannel>>) {
    await deliver(dovecot, box.user, box.password, [await mail(box, 1)]);
    await app.get(EmailMailboxReader).read(box.t.ctx.organizationId, box.id);
    const [conversation] = await rows<{ id: string }>(box.t, 'SELECT id FROM conversations');
    return conversation.id;
  }
  const reply = (box: Awaited<ReturnType<typeof emailChannel>>, conversationId: string, message: string) =>
    app.inject({ method: 'POST', url: `/functions/v1/messaging/conversations/${conversationId}/reply`, headers: box.t.key, payload: { message } });

  it('should append it to a folder named like Sent ("Sent Items") when the server marks none', async () => {
    const box = await emailChannel(app, dovecot, smtp);
    await createFolder(dovecot, box.user, box.password, 'Archive');
    await createFolder(dovecot, box.user, box.password, 'Sent Items');
    const res = await reply(box, await conversationOf(box), 'Filed under Sent Items');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, result: { sent_copy: 'appended' } });
    const copies = await folderMails(dovecot, box.user, box.password, 'Sent Items');
    expect(copies.map((m) => m.text?.trim())).toEqual(['Filed under Sent Items']);
    expect(await folderMails(dovecot, box.user, box.password, 'Archive')).toEqual([]);
  });

  it('should send without a copy, saying so in the message and a log line, when there is no Sent folder at all', async () => {
    const box = await emailChannel(app, dovecot, smtp);
    const conversationId = await conversationOf(box);
    const info = jest.spyOn(app.get<pino.Logger>(PLATFORM_LOG), 'info');
    try {
      const res = await reply(box, conversationId, 'No Sent folder here');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, result: { status: true, sent_copy: 'no Sent folder' } });
      expect(info).toHaveBeenCalledWith(
        { organization_id: box.t.ctx.organizationId, channel_account_id: box.id, sent_copy: 'no Sent folder' },
        'email sent copy not appended',
      );
    } finally {
      info.mockRestore();
    }
    expect(smtp.received.filter((m) => m.parsed.text?.trim() === 'No Sent folder here')).toHaveLength(1);
    type Row = { status: string; metadata: { sent_copy: string } };
    const [message] = await rows<Row>(box.t, `SELECT status, metadata FROM messages WHERE direction = 'OUTBOUND'`);
    expect(message).toMatchObject({ status: 'SENT', metadata: { sent_copy: 'no Sent folder' } });
  });
});
