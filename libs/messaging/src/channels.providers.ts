import type { Provider } from '@nestjs/common';
import type pino from 'pino';
import { ContactService } from '@engage/crm';
import { CONFIG, type Config, Database, PLATFORM_LOG, publicUrl, SecretBox, settingsOf } from '@engage/platform';
import { systemClock } from '@engage/shared-kernel';
import { MetaAdapter } from './application/adapters/meta.adapter';
import { EmailAdapter } from './application/adapters/email.adapter';
import { GraphSendApi } from './infrastructure/graph-send-api';
import { GraphProfileApi } from './infrastructure/graph-profile-api';
import { MetaProfileLookup } from './application/meta-profile.job';
import { ChatAppAdapter } from './application/adapters/chat-app.adapter';
import { ChannelAdapters } from './application/channel-adapter.port';
import { InboundSignal } from './application/inbound-receiver';
import { MetaInbound } from './application/meta-inbound';
import { SocialInbound } from './application/social-inbound';
import { MESSAGING_SETTINGS } from './messaging.settings';
import { SmsAdapter } from './application/adapters/sms.adapter';
import { SmsInbound, SmsPublicBase } from './application/sms-inbound';
import { OutboundDispatcher } from './outbound/dispatcher';
import { OutboundQueueWorker, OutboundSignal } from './outbound/queue.worker';
import { MESSAGING_PROVIDER, type MessagingProvider } from './application/messaging-provider.port';
import { OrganizationSettings } from '@engage/identity';
import type { SmsProvider } from './application/sms-provider.port';
import { SmsMessagesApi } from './infrastructure/sms-messages-api';

export const SMS_PROVIDER = Symbol('SMS_PROVIDER');
// Where an SMS account's provider posts its callbacks (the creation answer's inbound_path).
export const smsInboundPath = (channelAccountId: string) => `/functions/v1/sms-webhook/${channelAccountId}`;

// The channel adapters of the messaging context and the Meta webhook's receiver (kept apart from
// the module so adding a kind does not touch its wiring).
export const CHANNEL_PROVIDERS: Provider[] = [
  {
    provide: ChatAppAdapter,
    inject: [MESSAGING_PROVIDER, OrganizationSettings, ContactService],
    useFactory: (provider: MessagingProvider, settings: OrganizationSettings, contacts: ContactService) => new ChatAppAdapter(provider, settings, contacts),
  },
  {
    provide: ChannelAdapters,
    inject: [ChatAppAdapter, Database, SecretBox, CONFIG, SMS_PROVIDER, EmailAdapter, ContactService, SmsPublicBase],
    useFactory: (
      chatApp: ChatAppAdapter,
      db: Database,
      box: SecretBox,
      config: Config,
      sms: SmsProvider,
      email: EmailAdapter,
      contacts: ContactService,
      base: SmsPublicBase,
    ) => {
      const s = settingsOf(config, MESSAGING_SETTINGS);
      const graph = new GraphSendApi(s.META_GRAPH_URL ?? 'https://graph.facebook.com/v23.0', s.PROVIDER_TIMEOUT_MS);
      const meta = (['messenger', 'instagram'] as const).map((kind) => new MetaAdapter(kind, db, box, graph, systemClock));
      const smsAdapter = new SmsAdapter(db, box, sms, contacts, (id) => base.url + smsInboundPath(id));
      return new ChannelAdapters([chatApp, ...meta, smsAdapter, email]);
    },
  },
  // The one outbound path (docs/messaging.md): every sender's messages go out through it.
  { provide: OutboundSignal, useFactory: () => new OutboundSignal() },
  {
    provide: OutboundDispatcher,
    inject: [Database, ChannelAdapters, CONFIG, OutboundSignal],
    useFactory: (db: Database, adapters: ChannelAdapters, config: Config, signal: OutboundSignal) => {
      const { SEND_GAP_MIN_MS, SEND_GAP_MAX_MS } = settingsOf(config, MESSAGING_SETTINGS);
      return new OutboundDispatcher(db, adapters, { gapMinMs: SEND_GAP_MIN_MS, gapMaxMs: SEND_GAP_MAX_MS }, () => signal.queued());
    },
  },
  // The paced send queue's worker (the platform's runner drives messagingQueues in workers).
  {
    provide: OutboundQueueWorker,
    inject: [Database, OutboundDispatcher, OrganizationSettings, OutboundSignal],
    useFactory: (db: Database, dispatcher: OutboundDispatcher, settings: OrganizationSettings, signal: OutboundSignal) =>
      new OutboundQueueWorker(db, dispatcher, settings, signal),
  },
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
    provide: SmsInbound,
    inject: [Database, SecretBox, InboundSignal],
    useFactory: (db: Database, box: SecretBox, signal: InboundSignal) => new SmsInbound(db, box, signal),
  },
  {
    provide: SocialInbound,
    inject: [ContactService, ChannelAdapters],
    useFactory: (contacts: ContactService, adapters: ChannelAdapters) => new SocialInbound(contacts, (kind) => adapters.capabilitiesOf(kind)),
  },
  // Handler of the messaging.meta-profile job (run by the platform's job runner in workers).
  {
    provide: MetaProfileLookup,
    inject: [Database, ContactService, SecretBox, CONFIG, PLATFORM_LOG],
    useFactory: (db: Database, contacts: ContactService, box: SecretBox, config: Config, log: pino.Logger) => {
      const s = settingsOf(config, MESSAGING_SETTINGS);
      const graph = new GraphProfileApi(s.META_GRAPH_URL ?? 'https://graph.facebook.com/v23.0', s.PROVIDER_TIMEOUT_MS);
      return new MetaProfileLookup(db, contacts, box, graph, (fields, line) => log.warn(fields, line));
    },
  },
  {
    provide: MetaInbound,
    inject: [Database, InboundSignal, CONFIG, PLATFORM_LOG],
    useFactory: (db: Database, signal: InboundSignal, config: Config, log: pino.Logger) => {
      const s = settingsOf(config, MESSAGING_SETTINGS);
      return new MetaInbound(db, signal, { appSecret: s.META_APP_SECRET, verifyToken: s.META_VERIFY_TOKEN }, (fields, line) => log.info(fields, line));
    },
  },
];
