import type { EmailSender } from '../../application/email-sender.port';
import { DevMailboxEmailSender } from './dev-mailbox-email-sender';
import { SmtpEmailSender } from './smtp-email-sender';

export interface EmailConfig {
  SMTP_URL?: string;
  EMAIL_FROM: string;
  DATA_DIR: string;
}

export type EmailSenderKind = 'smtp' | 'dev-mailbox';

const senders: Record<EmailSenderKind, (config: EmailConfig) => EmailSender> = {
  smtp: ({ SMTP_URL, EMAIL_FROM }) => {
    if (SMTP_URL === undefined) throw new Error('the smtp email sender needs SMTP_URL');
    return new SmtpEmailSender(SMTP_URL, EMAIL_FROM);
  },
  'dev-mailbox': ({ DATA_DIR, EMAIL_FROM }) => new DevMailboxEmailSender(DATA_DIR, EMAIL_FROM),
};

export function emailSenderKind(config: EmailConfig): EmailSenderKind {
  return config.SMTP_URL ? 'smtp' : 'dev-mailbox';
}

export function createEmailSender(config: EmailConfig): EmailSender {
  return senders[emailSenderKind(config)](config);
}
