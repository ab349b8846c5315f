import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDataDir } from '@engage/platform';
import type { EmailMessage, EmailSender } from '../../application/email-sender.port';

export interface DevMail {
  id: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html?: string;
  sent_at: string;
}

const mailDir = (dataDir: string) => join(dataDir, 'mail');

// Without SMTP_URL, mail lands in DATA_DIR/mail as one JSON file per message, readable with `npm run admin -- mailbox`.
export class DevMailboxEmailSender implements EmailSender {
  private lastSentAt = 0;

  constructor(
    private readonly dataDir: string,
    private readonly from: string,
  ) {}

  async send(message: EmailMessage): Promise<void> {
    ensureDataDir(this.dataDir);
    // Mail holds verification and invitation tokens: only the owner may read it.
    await mkdir(mailDir(this.dataDir), { recursive: true, mode: 0o700 });
    // Strictly increasing, so two mails sent within one millisecond still list in order.
    this.lastSentAt = Math.max(Date.now(), this.lastSentAt + 1);
    const sentAt = new Date(this.lastSentAt).toISOString();
    const mail: DevMail = {
      id: randomUUID(),
      to: message.to,
      from: this.from,
      subject: message.subject,
      text: message.text,
      html: message.html,
      sent_at: sentAt,
    };
    const file = join(mailDir(this.dataDir), `${sentAt.replace(/:/g, '-')}-${mail.id}.json`);
    await writeFile(file, JSON.stringify(mail, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  }
}

// Newest first: file names start with the send time.
export async function listDevMailbox(dataDir: string): Promise<DevMail[]> {
  let names: string[];
  try {
    names = await readdir(mailDir(dataDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files = names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .reverse();
  return Promise.all(files.map(async (name) => JSON.parse(await readFile(join(mailDir(dataDir), name), 'utf8')) as DevMail));
}

export async function latestMailTo(dataDir: string, address: string): Promise<DevMail | undefined> {
  const wanted = address.trim().toLowerCase();
  return (await listDevMailbox(dataDir)).find((mail) => mail.to.trim().toLowerCase() === wanted);
}
