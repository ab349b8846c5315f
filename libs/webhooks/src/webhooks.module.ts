import { Module } from '@nestjs/common';
import { EMAIL_SENDER, type EmailSender, IdentityModule, MembershipService } from '@engage/identity';
import {
  type Config,
  CONFIG,
  createOutboundClient,
  Database,
  EventCatalogue,
  type OutboundClient,
  PLATFORM_LOG,
  SecretBox,
  settingsOf,
} from '@engage/platform';
import { WEBHOOK_SETTINGS } from './webhooks.settings';
import type { Logger } from 'pino';
import { CLOCK, type Clock, systemClock } from '@engage/shared-kernel';
import { ConfigurationService } from './application/configuration.service';
import { DeliveryRunner } from './application/delivery-runner';
import { DeliveryWorker } from './application/delivery.worker';
import { DisabledNotifier } from './application/disabled-notifier';
import { WebhookActions } from './application/webhook-actions.service';
import { ConfigurationsWriter } from './application/webhooks.record-writers';
import { WebhooksSubscriptions } from './application/webhooks.subscriptions';
import { WebhookLogPurge } from './application/webhook-log-purge.job';
import { WebhooksController } from './http/webhooks.controller';

export const WEBHOOK_OUTBOUND = Symbol('WEBHOOK_OUTBOUND');
const ATTEMPT_TIMEOUT_MS = 10_000;

@Module({
  imports: [IdentityModule],
  controllers: [WebhooksController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    {
      provide: WEBHOOK_OUTBOUND,
      inject: [CONFIG],
      // Every connection a burst of deliveries opened stays reusable: no new TLS handshake per burst.
      useFactory: (config: Config) =>
        createOutboundClient(config, { timeoutMs: ATTEMPT_TIMEOUT_MS, maxFreeSockets: settingsOf(config, WEBHOOK_SETTINGS).WEBHOOK_MAX_IN_FLIGHT }),
    },
    {
      provide: ConfigurationService,
      inject: [SecretBox, WEBHOOK_OUTBOUND, EventCatalogue],
      useFactory: (box: SecretBox, outbound: OutboundClient, catalogue: EventCatalogue) =>
        new ConfigurationService(
          box,
          outbound,
          catalogue.webhookKinds().map((contract) => contract.name),
        ),
    },
    {
      provide: DisabledNotifier,
      inject: [MembershipService, EMAIL_SENDER, PLATFORM_LOG],
      useFactory: (members: MembershipService, mail: EmailSender, log: Logger) =>
        new DisabledNotifier(members, mail, (message, error) => log.warn({ err: error }, message)),
    },
    {
      provide: DeliveryRunner,
      inject: [Database, SecretBox, WEBHOOK_OUTBOUND, CLOCK, DisabledNotifier],
      useFactory: (db: Database, box: SecretBox, outbound: OutboundClient, clock: Clock, notifier: DisabledNotifier) =>
        new DeliveryRunner(db, box, outbound, clock, { timeoutMs: ATTEMPT_TIMEOUT_MS, onDisabled: (notice) => notifier.notify(notice) }),
    },
    {
      provide: WebhookActions,
      inject: [Database, DeliveryRunner, CLOCK],
      useFactory: (db: Database, runner: DeliveryRunner, clock: Clock) => new WebhookActions(db, runner, clock),
    },
    DeliveryWorker,
    WebhookLogPurge,
    WebhooksSubscriptions,
    ConfigurationsWriter,
  ],
  exports: [ConfigurationService, DeliveryRunner, DeliveryWorker, WebhookActions, DisabledNotifier],
})
export class WebhooksModule {}
