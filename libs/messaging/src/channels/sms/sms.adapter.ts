import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { ContactService } from '@engage/crm';
import type { Database, SecretBox, Tx } from '@engage/platform';
import { CHANNEL_CAPABILITIES } from '../../domain/channel-capabilities';
import { OPT_IN_KEYWORDS, OPT_OUT_KEYWORDS, SMS_MAX_CHARS } from './sms';
import type { ConversationRow, MessageRow } from '../../infrastructure/messaging.sql';
import { LAST_SMS_KEYWORD, SMS_CHANNEL, type SmsChannelRow } from './sms.sql';
import type { ChannelAdapter, DeliverySession, OutboundSend, PlannedPart } from '../../outbound/channel-adapter.port';
import type { SmsProvider } from './sms-provider.port';

const unprocessable = (code: string, message: string) => new DomainError('unprocessable', code, message);
const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);

// SMS as a channel adapter, for the automated senders (§1: broadcasts and sequences; SMS is not
// answered from the inbox, its capabilities refuse agents' replies). A text goes to the contact's
// first phone from the account's number, unless the contact's last keyword on it was STOP.
export class SmsAdapter implements ChannelAdapter {
  readonly kind = 'sms' as const;
  readonly capabilities = CHANNEL_CAPABILITIES.sms;
  readonly sessionPerAccount = true;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly provider: SmsProvider,
    private readonly contacts: ContactService,
    // The public address of an account's webhook, where the provider posts status callbacks.
    private readonly callbackUrl: (channelAccountId: string) => string,
  ) {}

  async recipient(ctx: RequestContext, contactId: string): Promise<string> {
    const to = (await this.contacts.get(ctx, contactId)).phones[0];
    if (!to) throw unprocessable('sms.no_phone', 'The contact has no phone number to send an SMS to');
    return to;
  }

  async plan(tx: Tx, _ctx: RequestContext, conversation: ConversationRow, send: OutboundSend): Promise<PlannedPart[]> {
    if (typeof send.message !== 'string' || send.message.trim().length === 0 || [...send.message].length > SMS_MAX_CHARS) {
      throw invalid(`text must be 1 to ${SMS_MAX_CHARS} characters`);
    }
    if (send.message.includes('\u0000')) throw invalid('text must not contain NUL characters');
    if (send.mediaUrls.length > 0) throw unprocessable('sms.no_media', 'SMS channel accounts send text only');
    if (!send.to) throw unprocessable('sms.no_phone', 'The contact has no phone number to send an SMS to');
    await this.account(tx, conversation.channel_account_id);
    // The customer's last word on the channel: STOP (and its synonyms) until START.
    const [last] = await tx.query<{ keyword: string }>(LAST_SMS_KEYWORD, [
      conversation.contact_id,
      conversation.channel_account_id,
      [...OPT_OUT_KEYWORDS, ...OPT_IN_KEYWORDS],
    ]);
    if (last && OPT_OUT_KEYWORDS.includes(last.keyword)) {
      throw unprocessable('sms.opted_out', `The contact opted out of SMS on this number (replied ${last.keyword}); they can opt back in with START`);
    }
    return [{ content: send.message, media: [], metadata: { to: send.to } }];
  }

  async open(ctx: RequestContext, conversation: ConversationRow): Promise<DeliverySession> {
    const channel = await this.db.inTenant(ctx, (tx) => this.account(tx, conversation.channel_account_id));
    const credentials = { accountSid: channel.provider_account_id!, authToken: this.box.open(channel.access_token_sealed!) };
    return {
      deliver: (row: MessageRow) =>
        this.provider.send(credentials, {
          to: String(row.metadata.to),
          from: channel.external_account_id!,
          body: row.content,
          statusCallback: this.callbackUrl(channel.id),
        }),
    };
  }

  async check(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }> {
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<SmsChannelRow>(SMS_CHANNEL, [channelAccountId]));
    if (!channel?.provider_account_id || !channel.access_token_sealed) return { ok: false, error: 'no account sid or auth token stored' };
    return this.provider.check({ accountSid: channel.provider_account_id, authToken: this.box.open(channel.access_token_sealed) });
  }

  private async account(tx: Tx, channelAccountId: string): Promise<SmsChannelRow> {
    const [channel] = await tx.query<SmsChannelRow>(SMS_CHANNEL, [channelAccountId]);
    if (!channel || channel.kind !== 'sms') throw unprocessable('channel.not_sms', 'This channel account is not an SMS account');
    if (!channel.is_active) throw unprocessable('channel.inactive', 'This SMS channel account is not active');
    if (!channel.access_token_sealed || !channel.provider_account_id || !channel.external_account_id) {
      throw unprocessable('channel.not_connected', 'This SMS channel account has no credentials');
    }
    return channel;
  }
}
