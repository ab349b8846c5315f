import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { emailChannel, type EmailTestApp, startEmailTestApp } from '../../testing/email-test-channel';
import { composeMail, deliver, SmtpCapture, startDovecot } from '../../testing/mail-peers';
import { EmailMailboxJob, EmailPollTick } from './email-jobs';
import { EmailMailboxReader } from './email-mailbox';

// Mail read from a real Dovecot mailbox: stored, threaded, de-duplicated, and resumed after a stop.
const dovecot = startDovecot();
const smtp = new SmtpCapture('smtp-user', 'smtp-secret-456');
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;
let rows: EmailTestApp['rows'];

beforeAll(async () => {
  await smtp.start();
  ({ app, runtime, close, rows } = await startEmailTestApp());
});
afterAll(async () => {
  await close();
  await smtp.stop();
});

type Stored = { content: string; conversation_id: string; email_message_id: string | null; contact_id: string };
const messages = (t: TestTenant) =>
  rows<Stored>(t, `SELECT content, conversation_id, email_message_id, contact_id FROM messages WHERE direction = 'INBOUND' ORDER BY created_at, id`);

async function mailbox() {
  const channel = await emailChannel(app, dovecot, smtp);
  const put = (...mails: Buffer[]) => deliver(dovecot, channel.user, channel.password, mails);
  const read = (options: { maxMessages?: number; idleMs?: number } = {}) => app.get(EmailMailboxReader).read(channel.t.ctx.organizationId, channel.id, options);
  return { ...channel, put, read };
}

describe('reading an email mailbox', () => {
  it('should store a mail with its sender as a contact, safe text and sanitised HTML, attachments re-hosted, and message.received', async () => {
    const box = await mailbox();
    await box.put(
      await composeMail({
        from: '"Omar Ali" <Omar@Customer.test>',
        to: box.address,
        subject: 'Invoice question',
        messageId: '<html-1@customer.test>',
        html: '<p>Hello <b>team</b></p><script>alert(1)</script><img src="x" onerror="steal()"><a href="javascript:evil()">x</a>',
        attachments: [{ filename: 'photo.png', content: Buffer.from('fake-png-bytes'), contentType: 'image/png' }],
      }),
    );
    expect(await box.read()).toEqual({ outcome: 'read', stored: 1, duplicates: 0 });
    type Row = {
      content: string;
      media: Array<{ url: string; kind: string; filename: string }>;
      metadata: { email: { html: string; from: string } };
      origin: string;
    };
    const [message] = await rows<Row>(box.t, `SELECT content, media, metadata, origin FROM messages`);
    expect(message.origin).toBe('customer');
    expect(message.content).toContain('Hello');
    expect(message.content).not.toContain('<');
    expect(message.metadata.email.from).toBe('omar@customer.test');
    expect(message.metadata.email.html).toContain('<b>team</b>');
    expect(message.metadata.email.html).not.toMatch(/script|onerror|javascript:/);
    expect(message.media).toEqual([expect.objectContaining({ kind: 'image', filename: 'photo.png' })]);
    const served = await app.inject({ method: 'GET', url: new URL(message.media[0].url, 'http://x').pathname });
    expect(served.body).toBe('fake-png-bytes');
    const [contact] = await rows<{ first_name: string; emails: string[] }>(box.t, 'SELECT first_name, emails FROM contacts');
    expect(contact).toEqual({ first_name: 'Omar Ali', emails: ['omar@customer.test'] });
    const received = await runtime.db.asSystem((tx) =>
      tx.query(`SELECT 1 FROM outbox WHERE organization_id = $1 AND type = 'message.received'`, [box.t.ctx.organizationId]),
    );
    expect(received).toHaveLength(1);
  });

  it('should thread replies, reply-all, forwards, changed subjects and mails without headers into their conversation', async () => {
    const box = await mailbox();
    const from = 'sara@customer.test';
    const first = '<t-1@customer.test>';
    await box.put(
      await composeMail({ from, to: box.address, subject: 'Order 42 is late', messageId: first, text: 'first' }),
      // A reply by In-Reply-To.
      await composeMail({
        from,
        to: box.address,
        subject: 'Re: Order 42 is late',
        messageId: '<t-2@customer.test>',
        inReplyTo: first,
        references: [first],
        text: 'reply',
      }),
      // Reply-all: the customer's colleague on Cc, references only.
      await composeMail({
        from,
        to: box.address,
        cc: 'boss@customer.test',
        subject: 'RE: Order 42 is late',
        messageId: '<t-3@customer.test>',
        references: [first, '<t-2@customer.test>'],
        text: 'reply all',
      }),
      // The subject changed, the headers still name the thread.
      await composeMail({
        from,
        to: box.address,
        subject: 'Also: my address changed',
        messageId: '<t-4@customer.test>',
        inReplyTo: '<t-3@customer.test>',
        text: 'changed',
      }),
      // Forwarded by the same sender: no thread headers, the subject without its prefix matches.
      await composeMail({ from, to: box.address, subject: 'Fwd: AW: Order 42 is late', messageId: '<t-5@customer.test>', text: 'forwarded' }),
    );
    // Missing headers altogether: no Message-ID, no In-Reply-To; threads by subject, de-duplicated by UID.
    const bare = Buffer.from(`From: ${from}\r\nTo: ${box.address}\r\nSubject: SV: Order 42 is late\r\n\r\nbare\r\n`);
    await box.put(bare);
    expect(await box.read()).toMatchObject({ stored: 6, duplicates: 0 });
    const stored = await messages(box.t);
    expect(stored.map((m) => m.content)).toEqual(['first', 'reply', 'reply all', 'changed', 'forwarded', 'bare']);
    expect(new Set(stored.map((m) => m.conversation_id)).size).toBe(1);
    expect(stored[5].email_message_id).toBeNull();
    const [conversation] = await rows<{ email_subject: string; unread_count: number }>(box.t, 'SELECT email_subject, unread_count FROM conversations');
    expect(conversation).toEqual({ email_subject: 'Order 42 is late', unread_count: 6 });
  });

  it('should open a new conversation for a new subject once the old one is resolved, and reopen the old one for a reply to it', async () => {
    const box = await mailbox();
    const from = 'lina@customer.test';
    await box.put(await composeMail({ from, to: box.address, subject: 'Refund', messageId: '<r-1@customer.test>', text: 'refund please' }));
    await box.read();
    const [old] = await rows<{ id: string }>(box.t, 'SELECT id FROM conversations');
    await rows(box.t, `UPDATE conversations SET status = 'RESOLVED'`);
    await box.put(await composeMail({ from, to: box.address, subject: 'New topic', messageId: '<n-1@customer.test>', text: 'new' }));
    await box.read();
    const [fresh] = await rows<{ id: string; status: string; email_subject: string }>(
      box.t,
      'SELECT id, status, email_subject FROM conversations WHERE id <> $1',
      [old.id],
    );
    expect(fresh).toMatchObject({ status: 'OPEN', email_subject: 'New topic' });
    // The same subject as the resolved thread, but older than 7 days: not matched by subject.
    await rows(box.t, `UPDATE conversations SET status = 'RESOLVED', last_message_at = now() - interval '8 days'`);
    await box.put(await composeMail({ from, to: box.address, subject: 'Re: Refund', messageId: '<r-2@customer.test>', text: 'late' }));
    await box.read();
    const late = await rows<{ conversation_id: string }>(box.t, `SELECT conversation_id FROM messages WHERE content = 'late'`);
    expect([old.id, fresh.id]).not.toContain(late[0].conversation_id);
    // A reply by header to the resolved thread reopens it when the contact has no other unresolved one.
    await rows(box.t, `UPDATE conversations SET status = 'RESOLVED'`);
    await box.put(
      await composeMail({ from, to: box.address, subject: 'Re: Refund', messageId: '<r-3@customer.test>', inReplyTo: '<r-1@customer.test>', text: 'again' }),
    );
    await box.read();
    const [again] = await rows<{ conversation_id: string }>(box.t, `SELECT conversation_id FROM messages WHERE content = 'again'`);
    expect(again.conversation_id).toBe(old.id);
    expect(await rows(box.t, 'SELECT status FROM conversations WHERE id = $1', [old.id])).toEqual([{ status: 'OPEN' }]);
  });

  it('should store a Message-ID once, and resume after a stop mid-mailbox without skipping or repeating', async () => {
    const box = await mailbox();
    const mails = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        composeMail({ from: `c${i % 2}@customer.test`, to: box.address, subject: `Mail ${i}`, messageId: `<m-${i}@customer.test>`, text: `body ${i}` }),
      ),
    );
    // The same mail delivered twice (a second copy in the mailbox).
    await box.put(...mails, mails[3]);
    expect(await box.read({ maxMessages: 3 })).toMatchObject({ stored: 3, duplicates: 0 });
    expect((await messages(box.t)).map((m) => m.content)).toEqual(['body 0', 'body 1', 'body 2']);
    // A reader that died holding the lease: the next one waits for it to lapse, then continues.
    await rows(box.t, `UPDATE email_mailboxes SET lease_token = gen_random_uuid(), lease_until = now() + interval '1 minute'`);
    expect(await box.read()).toMatchObject({ outcome: 'busy', stored: 0 });
    await rows(box.t, `UPDATE email_mailboxes SET lease_until = now() - interval '1 second'`);
    expect(await box.read()).toMatchObject({ outcome: 'read', stored: 4, duplicates: 1 });
    expect((await messages(box.t)).map((m) => m.content)).toEqual(['body 0', 'body 1', 'body 2', 'body 3', 'body 4', 'body 5', 'body 6']);
    const [mark] = await rows<{ last_uid: string; lease_token: string | null }>(box.t, 'SELECT last_uid, lease_token FROM email_mailboxes');
    expect(mark).toEqual({ last_uid: '8', lease_token: null });
    // A server that renumbered its mailbox (new UIDVALIDITY): read again from the start, nothing stored twice.
    await rows(box.t, `UPDATE email_mailboxes SET uid_validity = 1`);
    expect(await box.read()).toMatchObject({ stored: 0, duplicates: 8 });
    expect(await messages(box.t)).toHaveLength(7);
  });

  it('should keep a Message-ID longer than external_id allows, de-duplicate and thread by it', async () => {
    const box = await mailbox();
    const long = `<${'x'.repeat(300)}@customer.test>`;
    const first = await composeMail({ from: 'long@customer.test', to: box.address, subject: 'Long id', messageId: long, text: 'one' });
    await box.put(first, first);
    await box.put(
      await composeMail({ from: 'long@customer.test', to: box.address, subject: 'Changed', messageId: '<short@customer.test>', inReplyTo: long, text: 'two' }),
    );
    expect(await box.read()).toMatchObject({ stored: 2, duplicates: 1 });
    const stored = await messages(box.t);
    expect(stored.map((m) => m.email_message_id)).toEqual([long, '<short@customer.test>']);
    expect(stored[0].conversation_id).toBe(stored[1].conversation_id);
  });

  it('should pass over a mail that fails to store in three runs in a row, saying so, and read on', async () => {
    const box = await mailbox();
    // A mail the database refuses every time (a constraint of this test's own).
    await runtime.db.systemQuery(`ALTER TABLE messages ADD CONSTRAINT test_refuses_poison CHECK (content <> 'poison')`);
    try {
      await box.put(
        await composeMail({ from: 'p@customer.test', to: box.address, subject: 'A', messageId: '<poison@customer.test>', text: 'poison' }),
        await composeMail({ from: 'p@customer.test', to: box.address, subject: 'B', messageId: '<fine@customer.test>', text: 'fine' }),
      );
      for (let run = 1; run < 3; run++) {
        const failed = await box.read();
        expect(failed).toMatchObject({ stored: 0 });
        expect(failed.error).toMatch(/test_refuses_poison/);
      }
      const third = await box.read();
      expect(third).toMatchObject({ stored: 1, skipped: [1] });
      expect(third.warning).toMatch(/^UID 1 skipped after 3 failed runs: .*test_refuses_poison/);
      expect((await messages(box.t)).map((m) => m.content)).toEqual(['fine']);
      const [mark] = await rows<{ last_uid: string; last_error: string }>(box.t, 'SELECT last_uid, last_error FROM email_mailboxes');
      expect(mark.last_uid).toBe('2');
      expect(mark.last_error).toMatch(/UID 1 skipped/);
    } finally {
      await runtime.db.systemQuery(`ALTER TABLE messages DROP CONSTRAINT test_refuses_poison`);
    }
  });

  it('should not connect to a mail server whose name resolves to a private address (the outbound rules)', async () => {
    const box = await mailbox();
    // "localhost" passes the checks made when storing (a name, not an address); the connection's vetting resolves it.
    await rows(box.t, `UPDATE channel_accounts SET email_settings = jsonb_set(email_settings, '{imap,host}', '"localhost"')`);
    const run = await box.read();
    expect(run.error).toMatch(/localhost refused: .*non-public address/);
    const tested = (await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${box.id}/test`, headers: box.t.key })).json();
    expect(tested).toEqual({ ok: false, error: expect.stringMatching(/localhost refused: .*non-public address/) });
  });

  it('should wait in IDLE and store mail that arrives meanwhile', async () => {
    const box = await mailbox();
    const running = box.read({ idleMs: 8000, maxMessages: 1 });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await box.put(
      await composeMail({ from: 'late@customer.test', to: box.address, subject: 'Arrived', messageId: '<idle-1@customer.test>', text: 'while idle' }),
    );
    expect(await running).toMatchObject({ outcome: 'read', stored: 1 });
    expect((await messages(box.t)).map((m) => m.content)).toEqual(['while idle']);
  });

  it('should report a mailbox it cannot log in to, keep its mark, and let the schedule queue only active channels', async () => {
    const box = await mailbox();
    const other = await mailbox();
    const [foreign] = await rows<{ s: string }>(other.t, 'SELECT imap_password_sealed AS s FROM channel_accounts');
    await rows(box.t, `UPDATE channel_accounts SET imap_password_sealed = $1`, [foreign.s]);
    // As the job runner runs it: the job answers the run (a failed run is not a failed job; the next tick retries).
    const job = { id: '1', name: 'messaging.email-mailbox', attempt: 1, organizationId: box.t.ctx.organizationId };
    const run = (await app.get(EmailMailboxJob).handle({ channelAccountId: box.id }, job))!;
    expect(run.outcome).toBe('read');
    expect(run.error).toMatch(/IMAP: login failed/);
    expect(await rows(box.t, 'SELECT last_uid, last_error IS NOT NULL AS failed FROM email_mailboxes')).toEqual([{ last_uid: '0', failed: true }]);
    await app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${other.id}`, headers: other.t.key, payload: { is_active: false } });
    await app.get(EmailPollTick).handle();
    // A second tick while that run is still queued queues nothing more.
    await app.get(EmailPollTick).handle();
    const queued = await runtime.db.systemQuery<{ organization_id: string; payload: { channelAccountId: string } }>(
      `SELECT organization_id, payload FROM jobs WHERE name = 'messaging.email-mailbox' AND organization_id = ANY($1::uuid[])`,
      [[box.t.ctx.organizationId, other.t.ctx.organizationId]],
    );
    expect(queued).toEqual([{ organization_id: box.t.ctx.organizationId, payload: { channelAccountId: box.id } }]);
    // The run clears the mark: the next tick queues the next run.
    await box.read();
    expect(await rows(box.t, 'SELECT queued_at FROM email_mailboxes')).toEqual([{ queued_at: null }]);
  });
});
