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
  const env = { ...process.env, DOVECOT_PORT: String(PORT), DOVECOT_DIR: DIR, DOVECOT_BIN: dovecotBinary() };
  execFileSync(script, ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    host: '127.0.0.1',
    port: PORT,
    // One passwd-file per user, read when the user first logs in: a new mailbox per test.
    addUser: (user, password) => writeFileSync(join(DIR, 'users', user), `${user}:{PLAIN}${password}\n`),
  };
}

export function dovecotBinary(): string {
  const binary = process.env.DOVECOT_BIN ?? ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((path) => existsSync(path));
  if (!binary) {
    throw new Error(
      'The email tests need a real IMAP server: the dovecot binary is missing (Debian: apt-get install -y dovecot-imapd; npm test installs it when run as root)',
    );
  }
  return binary;
}

export interface Captured {
  envelope: { from: string; to: string[] };
  // Whether the mail came over TLS (implicit or STARTTLS).
  secure: boolean;
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

  // tls: a certificate, and whether TLS starts at once (secure) or by STARTTLS; without it, plaintext only.
  constructor(
    readonly user: string,
    readonly password: string,
    private readonly tls?: { key: string; cert: string; secure: boolean },
  ) {}

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: !this.tls,
      ...(this.tls ? { secure: this.tls.secure, key: this.tls.key, cert: this.tls.cert } : { disabledCommands: ['STARTTLS'] }),
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
            this.received.push({ envelope, secure: session.secure, raw, parsed });
            done();
          }, done);
        });
      },
    });
    // A client that refuses the certificate drops the connection: an error event, not a crash of the test.
    this.server.on('error', () => undefined);
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', () => ok()));
    this.port = (this.server as unknown as { server: { address(): { port: number } } }).server.address().port;
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
type ImapServer = { host: string; port: number; tlsCa?: string };
const imapClient = (server: ImapServer, user: string, password: string) =>
  new ImapFlow({
    host: server.host,
    port: server.port,
    secure: false,
    auth: { user, pass: password },
    logger: false,
    tls: server.tlsCa ? { ca: [server.tlsCa] } : undefined,
  });

export async function deliver(server: ImapServer, user: string, password: string, mails: Buffer[], folder = 'INBOX'): Promise<void> {
  const client = imapClient(server, user, password);
  await client.connect().catch(explain('LOGIN'));
  try {
    for (const mail of mails) await client.append(folder, mail).catch(explain('APPEND'));
  } finally {
    await client.logout();
  }
}

// The mails of a folder, parsed.
export async function folderMails(server: ImapServer, user: string, password: string, folder: string): Promise<ParsedMail[]> {
  const client = imapClient(server, user, password);
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

// Creates a folder in a mailbox (e.g. "Sent Items" on a server without a \Sent folder).
export async function createFolder(server: ImapServer, user: string, password: string, folder: string): Promise<void> {
  const client = imapClient(server, user, password);
  await client.connect().catch(explain('LOGIN'));
  try {
    await client.mailboxCreate(folder).catch(explain('CREATE'));
  } finally {
    await client.logout();
  }
}

// imapflow's errors say "Command failed"; the server's words are in responseText.
const explain =
  (command: string) =>
  (error: Error & { responseText?: string }): never => {
    throw new Error(`IMAP ${command}: ${error.responseText ?? error.message}`);
  };
