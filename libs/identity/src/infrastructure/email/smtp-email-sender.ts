import { createTransport, type Transporter } from 'nodemailer';
import type { EmailMessage, EmailSender } from '../../application/email-sender.port';

export interface SmtpEmailSenderOptions {
  // Applies to DNS lookup, connection, greeting and each socket read; nodemailer's defaults run to minutes.
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

// Sends through one SMTP server given as smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (TLS from the start).
export class SmtpEmailSender implements EmailSender {
  private readonly transport: Transporter;
  // host:port, the only part of the URL that may appear in errors.
  readonly server: string;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    options: SmtpEmailSenderOptions = {},
  ) {
    const url = new URL(smtpUrl);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP URL must use smtp: or smtps:, got ${url.protocol}`);
    const secure = url.protocol === 'smtps:';
    const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.server = `${url.hostname}:${port}`;
    this.transport = createTransport({
      host: url.hostname,
      port,
      secure,
      auth: url.username === '' ? undefined : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
      dnsTimeout: timeout,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
  }

  async send(message: EmailMessage): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    } catch (error) {
      // nodemailer's messages carry the server's reply, never the credentials.
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`sending mail through SMTP server ${this.server} failed: ${reason}`, { cause: error });
    }
  }
}
