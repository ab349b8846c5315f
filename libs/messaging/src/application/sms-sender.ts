import { randomUUID } from 'node:crypto';
import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox, Tx } from '@engage/platform';
import type { ContactService } from '@engage/crm';
import { checkOutboundAuthor, type MessageAuthor, type MessageOrigin } from '../domain/message-origin';
import { OPT_IN_KEYWORDS, OPT_OUT_KEYWORDS, SMS_MAX_CHARS } from '../domain/sms';
import { INSERT_OUTBOUND_PART } from '../infrastructure/social.sql';
import { LAST_SMS_KEYWORD, SMS_CHANNEL, type SmsChannelRow } from '../infrastructure/sms.sql';
import { upsertConversation } from './conversation-store';
import { finishSend } from './finish-send';
import { ProviderError } from './messaging-provider.port';
import type { SmsCredentials, SmsProvider } from './sms-provider.port';
import type { MessageView } from './views';

export interface SmsSendInput {
  channelAccountId: string;
  contactId: string;
  text: string;
  // Who wrote it and its source, stored as the message's origin and origin_id: `broadcast` and the
  // broadcast's id make a reply raise broadcast.response.
  origin: MessageOrigin;
  originId: string | null;
  // Kept on the message (e.g. a `campaign_id`, passed on in broadcast.response).
  metadata?: Record<string, unknown>;
}

export interface SmsSendResult {
  conversationId: string;
  // SENT with the provider's sid as external_id, or FAILED with the provider's words as error.
  message: MessageView;
}

const unprocessable = (code: string, message: string) => new DomainError('unprocessable', code, message);
const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);

// The automated senders' SMS send (broadcasts, sequences, re-engagement: §1 keeps SMS out of the
// inbox's reply path). A text goes to the contact's first phone on the given SMS channel account,
// in the contact's SMS conversation (found or created). As on every channel, the message is stored
// PENDING and committed before the provider is called, then becomes SENT or FAILED with
// message.sent / message.failed. A provider failure is not thrown: the FAILED message is the answer.
export class SmsSender {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly contacts: ContactService,
    private readonly provider: SmsProvider,
    // The public address of an account's webhook, where the provider posts status callbacks.
    private readonly callbackUrl: (channelAccountId: string) => string,
  ) {}

  async send(ctx: RequestContext, input: SmsSendInput): Promise<SmsSendResult> {
    if (typeof input.text !== 'string' || input.text.trim().length === 0 || [...input.text].length > SMS_MAX_CHARS) {
      throw invalid(`text must be 1 to ${SMS_MAX_CHARS} characters`);
    }
    if (input.text.includes('\u0000')) throw invalid('text must not contain NUL characters');
    if (!isUuid(input.channelAccountId)) throw NotFound('channel_account', String(input.channelAccountId));
    if (!isUuid(input.contactId)) throw NotFound('contact', String(input.contactId));
    const author = checkOutboundAuthor({ origin: input.origin, originId: input.originId });
    const contact = await this.contacts.get(ctx, input.contactId);
    const to = contact.phones[0];
    if (!to) throw unprocessable('sms.no_phone', 'The contact has no phone number to send an SMS to');
    const pending = await this.db.inTenant(ctx, (tx) => this.storePending(tx, ctx, input, author, contact.id));
    let attempt: { result: Awaited<ReturnType<SmsProvider['send']>> | null; error: string | null };
    try {
      const message = { to, from: pending.from, body: input.text, statusCallback: this.callbackUrl(input.channelAccountId) };
      attempt = { result: await this.provider.send(pending.credentials, message), error: null };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      attempt = { result: null, error: error.message };
    }
    const [message] = await this.db.inTenant(ctx, (tx) => finishSend(tx, ctx, [pending.messageId], [attempt]));
    // Failed by the pending-send sweeper meanwhile (an interrupted send): read as it stands.
    if (!message) throw new Error(`SMS message ${pending.messageId} was settled by another process`);
    return { conversationId: pending.conversationId, message };
  }

  private async storePending(tx: Tx, ctx: RequestContext, input: SmsSendInput, author: MessageAuthor, contactId: string) {
    const [channel] = await tx.query<SmsChannelRow>(SMS_CHANNEL, [input.channelAccountId]);
    if (!channel || channel.kind !== 'sms') throw NotFound('channel_account', input.channelAccountId);
    if (!channel.is_active) throw unprocessable('channel.inactive', 'This SMS channel account is not active');
    if (!channel.access_token_sealed || !channel.provider_account_id || !channel.external_account_id) {
      throw unprocessable('channel.not_connected', 'This SMS channel account has no credentials');
    }
    // The customer's last word on the channel: STOP (and its synonyms) until START.
    const [last] = await tx.query<{ keyword: string }>(LAST_SMS_KEYWORD, [contactId, channel.id, [...OPT_OUT_KEYWORDS, ...OPT_IN_KEYWORDS]]);
    if (last && OPT_OUT_KEYWORDS.includes(last.keyword)) {
      throw unprocessable('sms.opted_out', `The contact opted out of SMS on this number (replied ${last.keyword}); they can opt back in with START`);
    }
    const conversation = await upsertConversation(tx, ctx, contactId, channel.id, 0);
    const metadata = { ...(input.metadata ?? {}), send_id: randomUUID(), ...(ctx.userId ? { sender_user_id: ctx.userId } : {}) };
    const [row] = await tx.query<{ id: string }>(INSERT_OUTBOUND_PART, [
      conversation.id,
      contactId,
      channel.id,
      0,
      input.text,
      '[]',
      JSON.stringify(metadata),
      author.origin,
      author.originId,
    ]);
    const credentials: SmsCredentials = { accountSid: channel.provider_account_id, authToken: this.box.open(channel.access_token_sealed) };
    return { conversationId: conversation.id, messageId: row.id, from: channel.external_account_id, credentials };
  }
}
