import type { Provider } from '@nestjs/common';
import { OrganizationSettings } from '@engage/identity';
import { CONFIG, type Config, Database, settingsOf } from '@engage/platform';
import type { ChannelModule } from './channels/channel';
import { CHAT_APP_CHANNEL } from './channels/chat-app/chat-app.providers';
import { EMAIL_CHANNEL } from './channels/email/email.providers';
import { META_CHANNEL } from './channels/meta/meta.providers';
import { SMS_CHANNEL } from './channels/sms/sms.providers';
import { MESSAGING_SETTINGS } from './messaging.settings';
import { type ChannelAdapter, ChannelAdapters } from './outbound/channel-adapter.port';
import { OutboundDispatcher } from './outbound/dispatcher';
import { OutboundQueueWorker, OutboundSignal } from './outbound/queue.worker';
import { PacedSender } from './outbound/paced-sender';

// The channels of this installation: a folder each (docs/architecture.md); adding one is a folder
// and an entry here.
const CHANNELS: Record<string, ChannelModule> = {
  chat_app: CHAT_APP_CHANNEL,
  meta: META_CHANNEL,
  email: EMAIL_CHANNEL,
  sms: SMS_CHANNEL,
};

// The channels' providers, the adapters gathered by kind, and the one outbound path over them:
// the dispatcher every sender goes through and the paced queue's worker.
export const CHANNEL_PROVIDERS: Provider[] = [
  ...Object.values(CHANNELS).flatMap((channel) => channel.providers),
  {
    provide: ChannelAdapters,
    inject: Object.values(CHANNELS).map((channel) => channel.adapters),
    useFactory: (...adapters: (ChannelAdapter | ChannelAdapter[])[]) => new ChannelAdapters(adapters.flat()),
  },
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
  // Automated messages that go now when the account's pacing allows (re-engagement, rules, bots).
  {
    provide: PacedSender,
    inject: [Database, OutboundDispatcher, OutboundQueueWorker, OutboundSignal],
    useFactory: (db: Database, dispatcher: OutboundDispatcher, worker: OutboundQueueWorker, signal: OutboundSignal) =>
      new PacedSender(db, dispatcher, worker, signal),
  },
];
