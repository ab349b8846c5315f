import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevMailboxEmailSender, latestMailTo, listDevMailbox } from './dev-mailbox-email-sender';
import { createEmailSender } from './email-sender.factory';

const FROM = 'Engage <no-reply@localhost>';
let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'engage-mailbox-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('DevMailboxEmailSender', () => {
  it('should write each message as a JSON file only its owner can read when sending', async () => {
    await new DevMailboxEmailSender(dataDir, FROM).send({
      to: 'ada@example.com',
      subject: 'Verify your email',
      text: 'code 482913',
      html: '<p>code 482913</p>',
    });

    const dir = join(dataDir, 'mail');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [name, ...others] = await readdir(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-[0-9a-f-]{36}\.json$/);
    expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    const mail = JSON.parse(await readFile(join(dir, name), 'utf8'));
    expect(mail).toEqual({
      id: expect.any(String),
      to: 'ada@example.com',
      from: FROM,
      subject: 'Verify your email',
      text: 'code 482913',
      html: '<p>code 482913</p>',
      sent_at: expect.any(String),
    });
    expect(name).toBe(`${mail.sent_at.replace(/:/g, '-')}-${mail.id}.json`);
  });

  it('should list the newest message first when several are sent within the same millisecond', async () => {
    const sender = new DevMailboxEmailSender(dataDir, FROM);
    for (const subject of ['first', 'second', 'third']) await sender.send({ to: 'ada@example.com', subject, text: subject });

    const mails = await listDevMailbox(dataDir);

    expect(mails.map((mail) => mail.subject)).toEqual(['third', 'second', 'first']);
    expect(mails[0].sent_at > mails[1].sent_at && mails[1].sent_at > mails[2].sent_at).toBe(true);
  });

  it('should return an empty list when no mail was ever sent', async () => {
    expect(await listDevMailbox(dataDir)).toEqual([]);
  });

  it('should find the latest mail to an address whatever its case', async () => {
    const sender = new DevMailboxEmailSender(dataDir, FROM);
    await sender.send({ to: 'Ada@Example.com', subject: 'old code', text: '111111' });
    await sender.send({ to: 'grace@example.com', subject: 'other person', text: '222222' });
    await sender.send({ to: 'ada@example.com', subject: 'new code', text: '333333' });
    await sender.send({ to: 'grace@example.com', subject: 'other person again', text: '444444' });

    expect((await latestMailTo(dataDir, 'ADA@example.COM'))?.subject).toBe('new code');
    expect(await latestMailTo(dataDir, 'nobody@example.com')).toBeUndefined();
  });

  it('should write to the dev mailbox when the factory is given no SMTP_URL', async () => {
    await createEmailSender({ EMAIL_FROM: FROM, DATA_DIR: dataDir }).send({ to: 'ada@example.com', subject: 'hello', text: 'hi' });

    expect(await latestMailTo(dataDir, 'ada@example.com')).toMatchObject({ from: FROM, subject: 'hello', text: 'hi' });
  });
});
