import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ImapFlow } from 'imapflow';
import { type ParsedMail, simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { SMTPServer } from 'smtp-server';

const ROOT = resolve(__dirname, '../../../..');
const PORT = Number(process.env.DOVECOT_PORT ?? 10143);
const DIR = process.env.DOVECOT_DIR ?? join(process.env.TMPDIR ?? tmpdir(), 'engage-dovecot');

// A real Dovecot IMAP server on 127.0.0.1 (scripts/dovecot-local.sh): started here when it is not
// running, so a test run needs only the distribution's dovecot package (.ci/run installs it).
export function startDovecot(): { host: string; port: number; addUser: (user: string, password: string) => void } {
  const script = join(ROOT, 'scripts/dovecot-local.sh');
  const binary = process.env.DOVECOT_BIN ?? ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((path) => existsSync(path));
  if (!binary) {
    throw new Error('The email tests need a real IMAP server: the dovecot binary is missing (Debian: apt-get install -y dovecot-imapd; .ci/run installs it)');
  }
  const env = { ...process.env, DOVECOT_PORT: String(PORT), DOVECOT_DIR: DIR, DOVECOT_BIN: binary };
  execFileSync(script, ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    host: '127.0.0.1',
    port: PORT,
    // One passwd-file per user, read when the user first logs in: a new mailbox per test.
    addUser: (user, password) => writeFileSync(join(DIR, 'users', user), `${user}:{PLAIN}${password}\n`),
  };
}

export interface Captured {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  parsed: ParsedMail;
}

// A real SMTP server (smtp-server) that requires a login and keeps what it receives.
export class SmtpCapture {
  readonly received: Captured[] = [];
  port = 0;
  // A recipient refused with this reply (a failing send).
  refuse: string | null = null;
  private server: SMTPServer | null = null;

  constructor(
    readonly user: string,
    readonly password: string,
  ) {}

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, done) =>
        auth.username === this.user && auth.password === this.password ? done(null, { user: auth.username }) : done(new Error('Invalid username or password')),
      onRcptTo: (_address, _session, done) => (this.refuse ? done(new Error(this.refuse)) : done()),
      onData: (stream, session, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          const envelope = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          };
          simpleParser(raw).then((parsed) => {
            this.received.push({ envelope, raw, parsed });
            done();
          }, done);
        });
      },
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', () => ok()));
    this.port = ((this.server as unknown as { server: { address(): { port: number } } }).server.address()).port;
  }

  stop(): Promise<void> {
    return new Promise((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }
}

// A mail as a customer's client writes it.
export function composeMail(options: Mail.Options): Promise<Buffer> {
  return new MailComposer({ date: new Date(), ...options }).compile().build();
}

// Puts mails into a mailbox over IMAP (APPEND), as a delivery would.
export async function deliver(server: { host: string; port: number }, user: string, password: string, mails: Buffer[], folder = 'INBOX'): Promise<void> {
  const client = new ImapFlow({ host: server.host, port: server.port, secure: false, auth: { user, pass: password }, logger: false });
  await client.connect().catch(explain('LOGIN'));
  try {
    for (const mail of mails) await client.append(folder, mail).catch(explain('APPEND'));
  } finally {
    await client.logout();
  }
}

// The mails of a folder, parsed.
export async function folderMails(server: { host: string; port: number }, user: string, password: string, folder: string): Promise<ParsedMail[]> {
  const client = new ImapFlow({ host: server.host, port: server.port, secure: false, auth: { user, pass: password }, logger: false });
  await client.connect();
  const mails: ParsedMail[] = [];
  try {
    const lock = await client.getMailboxLock(folder).catch(explain(`SELECT ${folder}`));
    try {
      const exists = client.mailbox === false ? 0 : client.mailbox.exists;
      if (exists > 0) for await (const m of client.fetch('1:*', { source: true })) if (m.source) mails.push(await simpleParser(m.source));
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
  return mails;
}

// A loopback file server for attachments given by URL.
export async function fileServer(files: Record<string, { body: Buffer; type: string }>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}

// imapflow's errors say "Command failed"; the server's words are in responseText.
const explain = (command: string) => (error: Error & { responseText?: string }): never => {
  throw new Error(`IMAP ${command}: ${error.responseText ?? error.message}`);
};
