import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox } from '@engage/platform';
import { CHANNEL_CAPABILITIES } from '../../domain/channel-capabilities';
import { SMS_CHANNEL, type SmsChannelRow } from '../../infrastructure/sms.sql';
import type { ChannelAdapter } from '../channel-adapter.port';
import type { SmsProvider } from '../sms-provider.port';
import type { SendOutcome } from '../send.service';

// SMS as a channel adapter: its capabilities (no agent replies, §1: SMS is for broadcasts and
// sequences, which send through SmsSender) and the credentials check of channel setup.
export class SmsAdapter implements ChannelAdapter {
  readonly kind = 'sms' as const;
  readonly capabilities = CHANNEL_CAPABILITIES.sms;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly provider: SmsProvider,
  ) {}

  // Never reached through ChannelAdapters.forReply (the capabilities refuse first); kept as refusal.
  reply(): Promise<SendOutcome> {
    return Promise.reject(
      new DomainError('unprocessable', 'channel.reply_not_allowed', 'Conversations on sms channels cannot be answered from the inbox', {
        channel_kind: 'sms',
      }),
    );
  }

  async check(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }> {
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<SmsChannelRow>(SMS_CHANNEL, [channelAccountId]));
    if (!channel?.provider_account_id || !channel.access_token_sealed) return { ok: false, error: 'no account sid or auth token stored' };
    return this.provider.check({ accountSid: channel.provider_account_id, authToken: this.box.open(channel.access_token_sealed) });
  }
}
