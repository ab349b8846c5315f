import { Module } from '@nestjs/common';
import { CrmModule, ContactService } from '@engage/crm';
import { Authenticator, IdentityModule, OrganizationSettings, TokenService } from '@engage/identity';
import { CONFIG, type Config, Database, PLATFORM_LOG } from '@engage/platform';
import type pino from 'pino';
import { MESSAGING_PROVIDER, type MessagingProvider } from './application/messaging-provider.port';
import { SendAuthorizer } from './application/send-authorizer';
import { SendService } from './application/send.service';
import { ChatLiteSendController } from './http/chat-lite-send.controller';
import { ProviderHolder } from './infrastructure/provider-holder';

@Module({
  imports: [IdentityModule, CrmModule],
  controllers: [ChatLiteSendController],
  providers: [
    { provide: ProviderHolder, inject: [CONFIG], useFactory: (config: Config) => ProviderHolder.create(config) },
    { provide: MESSAGING_PROVIDER, inject: [ProviderHolder], useFactory: (holder: ProviderHolder) => holder.provider },
    {
      provide: SendAuthorizer,
      inject: [Authenticator, TokenService, CONFIG],
      useFactory: (authenticator: Authenticator, tokens: TokenService, config: Config) => new SendAuthorizer(authenticator, tokens, config.ALLOW_ANON_SEND),
    },
    {
      provide: SendService,
      inject: [Database, ContactService, OrganizationSettings, MESSAGING_PROVIDER, CONFIG, PLATFORM_LOG],
      useFactory: (db: Database, contacts: ContactService, settings: OrganizationSettings, provider: MessagingProvider, config: Config, log: pino.Logger) =>
        new SendService(db, contacts, settings, provider, { gapMinMs: config.SEND_GAP_MIN_MS, gapMaxMs: config.SEND_GAP_MAX_MS }, (fields, line) => log.debug(fields, line)),
    },
  ],
  exports: [SendService, MESSAGING_PROVIDER],
})
export class MessagingModule {}
