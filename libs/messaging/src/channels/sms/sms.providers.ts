import { ContactService } from '@engage/crm';
import { CONFIG, type Config, Database, publicUrl, SecretBox, settingsOf } from '@engage/platform';
import { InboundSignal } from '../../inbound/inbound-receiver';
import { MESSAGING_SETTINGS } from '../../messaging.settings';
import type { ChannelModule } from '../channel';
import { SmsAdapter } from './sms.adapter';
import { SmsInbound, SmsPublicBase } from './sms-inbound';
import { SmsMessagesApi } from './sms-messages-api';
import type { SmsProvider } from './sms-provider.port';

export const SMS_PROVIDER = Symbol('SMS_PROVIDER');
// Where an SMS account's provider posts its callbacks (the creation answer's inbound_path).
export const smsInboundPath = (channelAccountId: string) => `/functions/v1/sms-webhook/${channelAccountId}`;

// SMS: the provider's Messages API, the adapter (automated senders only, §1) and the webhook's receiver.
export const SMS_CHANNEL: ChannelModule = {
  adapters: SmsAdapter,
  providers: [
    {
      provide: SMS_PROVIDER,
      inject: [CONFIG],
      useFactory: (config: Config) => {
        const s = settingsOf(config, MESSAGING_SETTINGS);
        return new SmsMessagesApi(s.SMS_API_URL ?? 'https://api.twilio.com', s.PROVIDER_TIMEOUT_MS);
      },
    },
    { provide: SmsPublicBase, inject: [CONFIG], useFactory: (config: Config) => new SmsPublicBase(publicUrl(config).replace(/\/+$/, '')) },
    {
      provide: SmsAdapter,
      inject: [Database, SecretBox, SMS_PROVIDER, ContactService, SmsPublicBase],
      useFactory: (db: Database, box: SecretBox, sms: SmsProvider, contacts: ContactService, base: SmsPublicBase) =>
        new SmsAdapter(db, box, sms, contacts, (id) => base.url + smsInboundPath(id)),
    },
    {
      provide: SmsInbound,
      inject: [Database, SecretBox, InboundSignal],
      useFactory: (db: Database, box: SecretBox, signal: InboundSignal) => new SmsInbound(db, box, signal),
    },
  ],
};
