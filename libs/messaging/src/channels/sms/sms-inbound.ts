import { DomainError, isUuid, NotFound, Unauthorized } from '@engage/shared-kernel';
import type { Database, SecretBox } from '@engage/platform';
import { parseInboundPayload } from '../../inbound/inbound-payload';
import { smsCallbackPayload, smsSignatureMatches } from './sms';
import { SYSTEM_SMS_CHANNEL, SYSTEM_STORE_SMS_EVENT, type SmsChannelRow } from './sms.sql';
import type { InboundSignal } from '../../inbound/inbound-receiver';

// PUBLIC_URL without its trailing slash (the platform's publicUrl: http://HOST:PORT when unset): the
// provider is given this address, and signs it with the path and query it requests.
export class SmsPublicBase {
  constructor(readonly url: string) {}
}

export interface SmsCallback {
  channelAccountId: string;
  // The full public address the provider requested (PUBLIC_URL + path and query): what it signed.
  url: string;
  form: string;
  signature: string | undefined;
}

// The SMS webhook (inbound messages and status callbacks of one channel account). The signature is
// checked with the account's auth token before anything is acted on; a callback that moves
// something is stored in inbound_events before the answer, and the inbound worker applies it as it
// does the chat app's (contact by phone, de-duplication by message sid, forward-only statuses).
export class SmsInbound {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly signal: InboundSignal,
  ) {}

  async receive(callback: SmsCallback): Promise<{ stored: boolean }> {
    // Unknown, inactive and other kinds' accounts get the same answer.
    if (!isUuid(callback.channelAccountId)) throw NotFound('channel_account', callback.channelAccountId);
    const [channel] = await this.db.systemQuery<SmsChannelRow>(SYSTEM_SMS_CHANNEL, [callback.channelAccountId]);
    if (!channel?.access_token_sealed) throw NotFound('channel_account', callback.channelAccountId);
    const pairs = [...new URLSearchParams(callback.form)];
    if (!smsSignatureMatches(callback.url, pairs, this.box.open(channel.access_token_sealed), callback.signature)) {
      const why = callback.signature === undefined ? 'The X-Twilio-Signature header is missing' : 'The signature does not match the request';
      throw Unauthorized('sms.invalid_signature', why);
    }
    const form = new Map<string, string>();
    for (const [name, value] of pairs) {
      if (form.has(name)) throw new DomainError('validation', 'validation_failed', `${name.slice(0, 40)} is given more than once`);
      form.set(name, value);
    }
    const accountSid = form.get('AccountSid');
    if (accountSid !== undefined && accountSid !== channel.provider_account_id) {
      throw new DomainError('validation', 'validation_failed', 'AccountSid is not the account of this channel');
    }
    const payload = smsCallbackPayload(form);
    if (!payload) return { stored: false };
    // The chat app's checks (lengths, NUL characters, media addresses) before it is stored.
    const checked = parseInboundPayload(payload);
    const [row] = await this.db.systemQuery<{ id: string }>(SYSTEM_STORE_SMS_EVENT, [channel.id, JSON.stringify(checked)]);
    // Switched off or deleted between the two statements: as if it were unknown.
    if (!row) throw NotFound('channel_account', callback.channelAccountId);
    this.signal.stored();
    return { stored: true };
  }
}
