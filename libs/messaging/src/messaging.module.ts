import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { CrmModule, ContactService } from '@engage/crm';
import { Authenticator, IdentityModule, OrganizationSettings, TokenService } from '@engage/identity';
import { CONFIG, type Config, Database, OBJECT_STORAGE, type ObjectStorage, PLATFORM_LOG, publicUrl, SecretBox, settingsOf } from '@engage/platform';
import { MESSAGING_SETTINGS } from './messaging.settings';
import type pino from 'pino';
import { ChannelAccountService } from './conversations/channel-account.service';
import { ConversationService } from './conversations/conversation.service';
import { CONVERSATION_COMMAND_HANDLERS } from './conversations/conversation-commands';
import { INBOUND_LANES, InboundProcessor } from './inbound/inbound-processor';
import { SocialInbound } from './channels/meta/social-inbound';
import { InboundPurge } from './inbound/inbound-purge';
import { InboundReceiver, InboundSignal } from './inbound/inbound-receiver';
import { InboundWorker } from './inbound/inbound.worker';
import { MESSAGING_PROVIDER } from './channels/chat-app/messaging-provider.port';
import { SendAuthorizer } from './channels/chat-app/send-authorizer';
import { SendService } from './channels/chat-app/send.service';
import { PendingSendSweeper } from './outbound/pending-send.sweeper';
import { ChatLiteSendController } from './channels/chat-app/chat-lite-send.controller';
import { ChatLiteWebhookController } from './channels/chat-app/chat-lite-webhook.controller';
import { MetaWebhookController } from './channels/meta/meta-webhook.controller';
import { ChannelTestController } from './conversations/channel-test.controller';
import { ConversationsController } from './conversations/conversations.controller';
import { CHANNEL_PROVIDERS } from './channels.providers';
import { EmailTransport } from './channels/email/email-transport';
import { EmailMailboxJob, EmailPollTick } from './channels/email/email-jobs';
import { ChannelAdapters } from './outbound/channel-adapter.port';
import { ProviderHolder } from './channels/chat-app/provider-holder';
import { ObjectMediaStore } from './inbound/object-media-store';
import { createMediaFetcher } from './inbound/media-fetcher';
import { MediaController } from './inbound/media.controller';
import { SmsWebhookController } from './channels/sms/sms-webhook.controller';
import { FormBodyParser } from './channels/sms/form-body.parser';
import { OutboundDispatcher } from './outbound/dispatcher';
import { PacedSender } from './outbound/paced-sender';
import { ScheduledMessagesController } from './outbound/scheduled-messages.controller';
import { SCHEDULED_MESSAGE_PROVIDERS } from './outbound/scheduled-messages.providers';
import { ScheduledSendPass } from './outbound/scheduled-send.job';
import { OutboundQueueController } from './outbound/outbound-queue.controller';
import { OUTBOUND_QUEUE_PROVIDERS } from './outbound/outbound-queue.providers';

const retentionOf = (config: Config) => settingsOf(config, MESSAGING_SETTINGS).INBOUND_RETENTION_DAYS;

@Module({
  imports: [IdentityModule, CrmModule, CqrsModule.forRoot()],
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
    // Commands other contexts send (automation's actions), on the command bus.
    ...CONVERSATION_COMMAND_HANDLERS,
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
    PacedSender,
    EmailMailboxJob,
    EmailPollTick,
  ],
})
export class MessagingModule {}
