import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { EmailMessage, EmailSender } from '../../application/email-sender.port';
import { createEmailSender } from './email-sender.factory';
import { SmtpEmailSender } from './smtp-email-sender';

interface Received {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

const FROM = 'Engage <no-reply@localhost>';
const USER = 'mailer';
const PASSWORD = 'p@ss:w/rd-7f3a';
const CREDENTIALS = `${USER}:${encodeURIComponent(PASSWORD)}`;
const message: EmailMessage = { to: 'ada@example.com', subject: 'Verify your email', text: 'Your code is 482913', html: '<p>Your code is <b>482913</b></p>' };

const smtpServers: SMTPServer[] = [];
const silentServers: { server: Server; sockets: Socket[] }[] = [];

afterEach(async () => {
  await Promise.all(smtpServers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  for (const { server, sockets } of silentServers.splice(0)) {
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => server.close(resolve));
  }
});

async function startSmtpServer(options: SMTPServerOptions): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    // Plain text on loopback: offered STARTTLS would make nodemailer upgrade and refuse the self-signed certificate.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    ...options,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        received.push({
          from: mailFrom ? mailFrom.address : '',
          to: rcptTo.map((rcpt) => rcpt.address),
          user: session.user,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  smtpServers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return { port: (server.server.address() as AddressInfo).port, received };
}

// Accepts connections and never says a word, like a firewalled or hung mail server.
async function startSilentServer(): Promise<number> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  silentServers.push({ server, sockets });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function sendError(sender: EmailSender): Promise<Error> {
  const error = await sender.send(message).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

function expectNoPassword(error: Error): void {
  const cause = error.cause as Error | undefined;
  for (const text of [error.message, error.stack, cause?.message, cause?.stack, JSON.stringify(cause)]) {
    expect(text ?? '').not.toContain(PASSWORD);
    expect(text ?? '').not.toContain(encodeURIComponent(PASSWORD));
  }
}

describe('SmtpEmailSender', () => {
  it('should deliver the message with its envelope when the server needs no login', async () => {
    const { port, received } = await startSmtpServer({ authOptional: true });

    await new SmtpEmailSender(`smtp://127.0.0.1:${port}`, FROM).send(message);

    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'no-reply@localhost', to: ['ada@example.com'], user: undefined });
    expect(received[0].raw).toContain('Subject: Verify your email');
    expect(received[0].raw).toContain('Your code is 482913');
    expect(received[0].raw).toContain('<b>482913</b>');
  });

  it('should log in with the user and password of the URL when the server requires AUTH PLAIN', async () => {
    const { port, received } = await startSmtpServer({
      authMethods: ['PLAIN'],
      onAuth(auth, _session, callback) {
        if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
    });

    await new SmtpEmailSender(`smtp://${CREDENTIALS}@127.0.0.1:${port}`, FROM).send(message);

    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'no-reply@localhost', to: ['ada@example.com'], user: USER });
  });

  it('should reject naming the server but not the password when the login is refused', async () => {
    const { port, received } = await startSmtpServer({
      authMethods: ['PLAIN'],
      onAuth: (_auth, _session, callback) => callback(new Error('Invalid username or password')),
    });

    const error = await sendError(new SmtpEmailSender(`smtp://${CREDENTIALS}@127.0.0.1:${port}`, FROM));

    expect(error.message).toContain(`SMTP server 127.0.0.1:${port}`);
    expect(error.message).toContain('Invalid username or password');
    expectNoPassword(error);
    expect(received).toHaveLength(0);
  });

  it('should reject naming the server but not the password when the recipient is refused', async () => {
    const { port, received } = await startSmtpServer({
      authMethods: ['PLAIN'],
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
      onRcptTo: (_address, _session, callback) => callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 })),
    });

    const error = await sendError(new SmtpEmailSender(`smtp://${CREDENTIALS}@127.0.0.1:${port}`, FROM));

    expect(error.message).toContain(`SMTP server 127.0.0.1:${port}`);
    expect(error.message).toContain('550 Mailbox unavailable');
    expectNoPassword(error);
    expect(received).toHaveLength(0);
  });

  it('should reject at once when nothing listens on the port', async () => {
    const port = await closedPort();
    const started = Date.now();

    const error = await sendError(new SmtpEmailSender(`smtp://${CREDENTIALS}@127.0.0.1:${port}`, FROM, { timeoutMs: 500 }));

    expect(Date.now() - started).toBeLessThan(500);
    expect(error.message).toContain(`SMTP server 127.0.0.1:${port}`);
    expectNoPassword(error);
  });

  it('should reject within the timeout when the server never greets', async () => {
    const port = await startSilentServer();
    const started = Date.now();

    const error = await sendError(new SmtpEmailSender(`smtp://127.0.0.1:${port}`, FROM, { timeoutMs: 300 }));

    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
    expect(error.message).toContain(`SMTP server 127.0.0.1:${port}`);
    expect(error.message).toMatch(/timeout/i);
  });

  it('should refuse a URL that is not smtp: or smtps:', () => {
    expect(() => new SmtpEmailSender('http://127.0.0.1:25', FROM)).toThrow('SMTP URL must use smtp: or smtps:, got http:');
  });

  it('should send through SMTP when the factory is given an SMTP_URL', async () => {
    const { port, received } = await startSmtpServer({ authOptional: true });

    await createEmailSender({ SMTP_URL: `smtp://127.0.0.1:${port}`, EMAIL_FROM: FROM, DATA_DIR: '/nonexistent' }).send(message);

    expect(received.map((mail) => mail.to)).toEqual([['ada@example.com']]);
  });
});
