import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox, Tx } from '@engage/platform';
import type { ContactService } from '@engage/crm';
import { CHANNEL_CAPABILITIES } from '../../domain/channel-capabilities';
import { replyReferences, replySubject } from './email-threading';
import { attachmentOf } from '../../domain/media';
import { EMAIL_CHANNEL_SECRET, type EmailChannelSecret, THREAD_TAIL } from './email.sql';
import { describe, type EmailTransport } from './email-transport';
import type { ConversationRow, MessageRow } from '../../infrastructure/messaging.sql';
import { CONTACT_CHANNEL_ID } from '../meta/social.sql';
import type { ChannelAdapter, DeliverySession, OutboundSend, PlannedPart } from '../../outbound/channel-adapter.port';
import type { MediaFetcher } from '../../inbound/media-store.port';
import { ProviderError } from '../../outbound/provider-result';

type EmailHeaders = { from: string; to: string[]; subject: string; in_reply_to: string | null; references: string[] };

// Email through the account's SMTP server (nodemailer): one mail per send, the text and the
// attachments together, In-Reply-To and References set from the conversation's newest mail so the
// customer's client threads it, then a copy appended to the Sent folder over IMAP where the server
// has one.
export class EmailAdapter implements ChannelAdapter {
  readonly kind = 'email' as const;
  readonly capabilities = CHANNEL_CAPABILITIES.email;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly transport: EmailTransport,
    private readonly contacts: ContactService,
    private readonly fetchMedia: MediaFetcher,
    private readonly info: (fields: Record<string, unknown>, line: string) => void = () => undefined,
  ) {}

  // The contact's first address, used when the customer never wrote from one on this account ('' if none).
  async recipient(ctx: RequestContext, contactId: string): Promise<string> {
    return (await this.contacts.get(ctx, contactId)).emails[0] ?? '';
  }

  async plan(tx: Tx, _ctx: RequestContext, conversation: ConversationRow, send: OutboundSend): Promise<PlannedPart[]> {
    const channel = await this.account(tx, conversation.channel_account_id);
    const [known] = await tx.query<{ external_user_id: string }>(CONTACT_CHANNEL_ID, [conversation.channel_account_id, conversation.contact_id]);
    const to = known?.external_user_id || send.to;
    if (!to) throw unprocessable('channel.no_recipient', 'The contact has no email address');
    const [tail] = await tx.query<{ email_message_id: string; refs: unknown }>(THREAD_TAIL, [conversation.id]);
    const references = replyReferences(tail?.email_message_id ?? null, Array.isArray(tail?.refs) ? tail.refs.filter((r) => typeof r === 'string') : []);
    const from = channel.email_settings!.address;
    const email: EmailHeaders = {
      from,
      to: [to],
      subject: replySubject(send.subject, conversation.email_subject),
      in_reply_to: tail?.email_message_id ?? null,
      references,
    };
    const media = send.mediaUrls.map((url) => ({ url, kind: attachmentOf(url, false).kind }));
    return [{ content: send.message, media, metadata: { email }, emailMessageId: `<${randomUUID()}@${from.split('@')[1]}>` }];
  }

  async open(ctx: RequestContext, conversation: ConversationRow): Promise<DeliverySession> {
    const channel = await this.db.inTenant(ctx, (tx) => this.account(tx, conversation.channel_account_id));
    let raw: Buffer | null = null;
    return {
      deliver: async (row: MessageRow) => {
        const email = row.metadata.email as EmailHeaders;
        try {
          raw = await this.compose(row, email, channel.name);
          const transporter = await this.transport.smtp(channel.email_settings!.smtp, this.box.open(channel.smtp_password_sealed!));
          try {
            const info = await transporter.sendMail({ envelope: { from: email.from, to: email.to }, raw });
            const answer = { status: true, message: 'Email sent', message_id: row.email_message_id, response: String(info.response ?? '').slice(0, 500) };
            return { status: true, message: answer.response, externalId: row.email_message_id, raw: answer };
          } finally {
            transporter.close();
          }
        } catch (error) {
          throw new ProviderError(`Email not sent: ${describe(error)}`, null);
        }
      },
      afterSent: async () => {
        const copy = raw ? await this.appendSentCopy(channel, raw) : 'not composed';
        if (copy !== 'appended') {
          this.info({ organization_id: ctx.organizationId, channel_account_id: channel.id, sent_copy: copy }, 'email sent copy not appended');
        }
        return { sent_copy: copy };
      },
    };
  }

  async check(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }> {
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<EmailChannelSecret>(EMAIL_CHANNEL_SECRET, [channelAccountId]));
    if (!channel?.email_settings || !channel.imap_password_sealed || !channel.smtp_password_sealed) {
      return { ok: false, error: 'no IMAP or SMTP settings stored' };
    }
    const s = channel.email_settings;
    return this.transport.check(s.imap, this.box.open(channel.imap_password_sealed), s.smtp, this.box.open(channel.smtp_password_sealed));
  }

  private async account(tx: Tx, channelAccountId: string): Promise<EmailChannelSecret> {
    const [channel] = await tx.query<EmailChannelSecret>(EMAIL_CHANNEL_SECRET, [channelAccountId]);
    if (!channel?.email_settings || !channel.smtp_password_sealed) throw unprocessable('channel.not_connected', 'This channel account has no SMTP settings');
    if (!channel.is_active) throw unprocessable('channel.inactive', 'This channel account is not active');
    return channel;
  }

  // The mail's bytes, built once: sent over SMTP and appended to Sent as they are. Attachments are
  // downloaded through the SSRF-safe media fetcher (never by the mail library from the URL).
  private async compose(row: MessageRow, email: EmailHeaders, name: string): Promise<Buffer> {
    const attachments = [];
    for (const { url } of row.media) {
      const { bytes, contentType } = await this.fetchMedia(url).catch((error: Error) => {
        throw new Error(`attachment ${url.slice(0, 200)} could not be fetched: ${error.message}`);
      });
      attachments.push({ filename: fileNameOf(url), content: bytes, contentType });
    }
    const composer = new MailComposer({
      from: { name, address: email.from },
      to: email.to,
      subject: email.subject,
      text: row.content,
      messageId: row.email_message_id ?? undefined,
      inReplyTo: email.in_reply_to ?? undefined,
      references: email.references.length > 0 ? email.references : undefined,
      date: new Date(),
      attachments,
    });
    return composer.compile().build();
  }

  // 'appended', 'no Sent folder', or why it failed: the mail went out either way. The folder is the one
  // the server marks \Sent, else one named as clients name it (sentFolder).
  private async appendSentCopy(channel: EmailChannelSecret, raw: Buffer): Promise<string> {
    if (!channel.imap_password_sealed || !channel.email_settings) return 'no IMAP settings';
    try {
      const client = await this.transport.imap(channel.email_settings.imap, this.box.open(channel.imap_password_sealed));
      try {
        const sent = sentFolder(await client.list());
        if (!sent) return 'no Sent folder';
        await client.append(sent.path, raw, ['\\Seen']);
        return 'appended';
      } finally {
        await client.logout().catch(() => client.close());
      }
    } catch (error) {
      return `failed: ${describe(error)}`.slice(0, 500);
    }
  }
}

// Names mail clients give the Sent folder, in order of preference, for servers that mark none.
const SENT_NAMES = ['sent', 'sent items', 'sent messages', 'inbox.sent', 'inbox/sent'];

// The folder flagged \Sent by the server (SPECIAL-USE), else the first named like one; imapflow's
// own guess from localised names is not used, so the choice stays predictable.
export function sentFolder(folders: Array<{ path: string; specialUse?: string; specialUseSource?: string }>): { path: string } | null {
  const flagged = folders.find((f) => f.specialUse === '\\Sent' && f.specialUseSource === 'extension');
  if (flagged) return flagged;
  for (const name of SENT_NAMES) {
    const named = folders.find((f) => f.path.toLowerCase() === name);
    if (named) return named;
  }
  return null;
}

const unprocessable = (code: string, message: string) => new DomainError('unprocessable', code, message);
const fileNameOf = (url: string): string => {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last).slice(0, 200) || 'attachment';
  } catch {
    return last.slice(0, 200) || 'attachment';
  }
};
