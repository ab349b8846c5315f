import { Module } from '@nestjs/common';
import { CrmModule, ContactService } from '@engage/crm';
import { Authenticator, IdentityModule, OrganizationSettings, TokenService } from '@engage/identity';
import { CONFIG, type Config, Database, OBJECT_STORAGE, type ObjectStorage, PLATFORM_LOG, publicUrl, SecretBox, settingsOf } from '@engage/platform';
import { MESSAGING_SETTINGS } from './messaging.settings';
import type pino from 'pino';
import { ChannelAccountService } from './application/channel-account.service';
import { ConversationService } from './application/conversation.service';
import { INBOUND_LANES, InboundProcessor } from './application/inbound-processor';
import { SocialInbound } from './application/social-inbound';
import { InboundPurge } from './application/inbound-purge';
import { InboundReceiver, InboundSignal } from './application/inbound-receiver';
import { InboundWorker } from './application/inbound.worker';
import { MESSAGING_PROVIDER } from './application/messaging-provider.port';
import { SendAuthorizer } from './application/send-authorizer';
import { SendService } from './application/send.service';
import { PendingSendSweeper } from './application/pending-send.sweeper';
import { ChatLiteSendController } from './http/chat-lite-send.controller';
import { ChatLiteWebhookController } from './http/chat-lite-webhook.controller';
import { MetaWebhookController } from './http/meta-webhook.controller';
import { ChannelTestController } from './http/channel-test.controller';
import { ConversationsController } from './http/conversations.controller';
import { CHANNEL_PROVIDERS } from './channels.providers';
import { EMAIL_PROVIDERS } from './email.providers';
import { EmailTransport } from './infrastructure/email-transport';
import { EmailMailboxJob, EmailPollTick } from './application/email-jobs';
import { ChannelAdapters } from './application/channel-adapter.port';
import { ProviderHolder } from './infrastructure/provider-holder';
import { ObjectMediaStore } from './infrastructure/object-media-store';
import { createMediaFetcher } from './infrastructure/media-fetcher';
import { MediaController } from './http/media.controller';
import { SmsWebhookController } from './http/sms-webhook.controller';
import { FormBodyParser } from './http/form-body.parser';
import { OutboundDispatcher } from './outbound/dispatcher';
import { ScheduledMessagesController } from './outbound/scheduled-messages.controller';
import { SCHEDULED_MESSAGE_PROVIDERS } from './outbound/scheduled-messages.providers';
import { ScheduledSendPass } from './outbound/scheduled-send.job';
import { OutboundQueueController } from './outbound/outbound-queue.controller';
import { OUTBOUND_QUEUE_PROVIDERS } from './outbound/outbound-queue.providers';

const retentionOf = (config: Config) => settingsOf(config, MESSAGING_SETTINGS).INBOUND_RETENTION_DAYS;

@Module({
  imports: [IdentityModule, CrmModule],
  controllers: [
    ChatLiteSendController,
    ChatLiteWebhookController,
    ConversationsController,
    MediaController,
    MetaWebhookController,
    ChannelTestController,
    SmsWebhookController,
    ScheduledMessagesController,
    OutboundQueueController,
  ],
  providers: [
    FormBodyParser,
    ...SCHEDULED_MESSAGE_PROVIDERS,
    ...OUTBOUND_QUEUE_PROVIDERS,
    { provide: ProviderHolder, inject: [CONFIG], useFactory: (config: Config) => ProviderHolder.create(config) },
    { provide: MESSAGING_PROVIDER, inject: [ProviderHolder], useFactory: (holder: ProviderHolder) => holder.provider },
    {
      provide: SendAuthorizer,
      inject: [Authenticator, TokenService, CONFIG],
      useFactory: (authenticator: Authenticator, tokens: TokenService, config: Config) =>
        new SendAuthorizer(authenticator, tokens, settingsOf(config, MESSAGING_SETTINGS).ALLOW_ANON_SEND),
    },
    {
      provide: SendService,
      inject: [ContactService, OrganizationSettings, OutboundDispatcher, Database, ChannelAdapters, PLATFORM_LOG],
      useFactory: (
        contacts: ContactService,
        settings: OrganizationSettings,
        dispatcher: OutboundDispatcher,
        db: Database,
        adapters: ChannelAdapters,
        log: pino.Logger,
      ) => new SendService(contacts, settings, dispatcher, db, adapters, (fields, line) => log.debug(fields, line)),
    },
    {
      provide: ChannelAccountService,
      inject: [Database, SecretBox, EmailTransport, ChannelAdapters],
      useFactory: (db: Database, box: SecretBox, email: EmailTransport, adapters: ChannelAdapters) =>
        new ChannelAccountService(db, box, adapters, (host, field) => email.checkHost(host, field)),
    },
    ...CHANNEL_PROVIDERS,
    ...EMAIL_PROVIDERS,
    {
      provide: ConversationService,
      inject: [Database, OutboundDispatcher],
      useFactory: (db: Database, dispatcher: OutboundDispatcher) => new ConversationService(db, dispatcher),
    },
    { provide: InboundSignal, useFactory: () => new InboundSignal() },
    { provide: InboundReceiver, inject: [Database, InboundSignal], useFactory: (db: Database, signal: InboundSignal) => new InboundReceiver(db, signal) },
    // Re-hosted media go to the platform's object storage (the CDN, or its local stand-in).
    {
      provide: ObjectMediaStore,
      inject: [OBJECT_STORAGE, CONFIG],
      useFactory: (storage: ObjectStorage, config: Config) => new ObjectMediaStore(storage, publicUrl(config)),
    },
    {
      provide: InboundProcessor,
      inject: [Database, ContactService, ObjectMediaStore, CONFIG, SocialInbound],
      useFactory: (db: Database, contacts: ContactService, store: ObjectMediaStore, config: Config, social: SocialInbound) =>
        new InboundProcessor(
          db,
          contacts,
          {
            store,
            fetch: createMediaFetcher({ allowHosts: config.OUTBOUND_ALLOW_HOSTS, timeoutMs: settingsOf(config, MESSAGING_SETTINGS).PROVIDER_TIMEOUT_MS }),
          },
          INBOUND_LANES,
          social,
        ),
    },
    // The hot queue inboundQueue: the platform's runner drives it in worker and all-in-one processes.
    {
      provide: InboundWorker,
      inject: [InboundProcessor, InboundSignal],
      useFactory: (processor: InboundProcessor, signal: InboundSignal) => new InboundWorker(processor, signal),
    },
    // Handlers of the scheduled jobs (messagingSchedules), run by the platform's job runner in workers.
    { provide: PendingSendSweeper, inject: [Database], useFactory: (db: Database) => new PendingSendSweeper(db, { staleAfterMs: 10 * 60_000 }) },
    {
      provide: InboundPurge,
      inject: [Database, CONFIG],
      useFactory: (db: Database, config: Config) => new InboundPurge(db, { retentionDays: retentionOf(config) }),
    },
  ],
  exports: [
    ScheduledSendPass,
    PendingSendSweeper,
    InboundPurge,
    SendService,
    MESSAGING_PROVIDER,
    ConversationService,
    ChannelAccountService,
    InboundProcessor,
    OutboundDispatcher,
    EmailMailboxJob,
    EmailPollTick,
  ],
})
export class MessagingModule {}
