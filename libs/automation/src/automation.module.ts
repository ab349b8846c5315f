import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';
import { IdentityModule, OrganizationSettings } from '@engage/identity';
import { MessagingModule, PacedSender } from '@engage/messaging';
import { CONFIG, type Config, createOutboundClient, Database, SecretBox } from '@engage/platform';
import { CLOCK, type Clock, systemClock } from '@engage/shared-kernel';
import { RulesWriter } from './application/automation.record-writers';
import { DryRunService } from './application/dry-run.service';
import { RuleActions } from './application/rule-actions';
import { RuleEngine } from './application/rule-engine';
import { RuleEngineConsumer } from './application/rule-engine.consumer';
import { RULE_WEBHOOK_TIMING, RuleWebhook, WEBHOOK_TIMING, type WebhookTiming } from './application/rule-webhook';
import { RuleWebhookDelivery } from './application/rule-webhook.job';
import { RulesService } from './application/rules.service';
import { RunLogPurge } from './application/run-log-purge.job';
import { TimerArming } from './application/timer-arming';
import { TimerPass } from './application/timer-pass.job';
import { AutomationController } from './http/automation.controller';
import { BotFlowsService, BotFlowsWriter } from './bots/application/bot-flows.service';
import { BotConsumer, BotSessionsPass } from './bots/application/bot.consumer';
import { BotRuntime } from './bots/application/bot-runtime';
import { BotSteps } from './bots/application/bot-steps';
import { BotSessionsController } from './bots/http/bot-sessions.controller';
import { BotsController } from './bots/http/bots.controller';

// The data API's tables as the composition registered them, looked up once every module is up:
// the dry run and the engine read their subject through them. An app without the data API reads none.
function dataApiTables(moduleRef: ModuleRef): () => Registry {
  let registry: Registry | undefined;
  return () => {
    if (!registry) {
      try {
        registry = moduleRef.get<Registry>(DATA_API_REGISTRY, { strict: false });
      } catch {
        registry = { tables: new Map() };
      }
    }
    return registry;
  };
}

// Automation (docs/automation.md): rules as validated data (written through the data API), the
// run log and its retention, the dry run, and the rule engine (a consumer of messaging's and the
// CRM's events whose actions go through those contexts' commands and messaging's paced queue), its
// conversation timers and waits (the timer pass).
@Module({
  imports: [IdentityModule, MessagingModule, CqrsModule.forRoot()],
  controllers: [AutomationController, BotsController, BotSessionsController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    { provide: RulesService, inject: [SecretBox], useFactory: (box: SecretBox) => new RulesService(box) },
    {
      provide: DryRunService,
      inject: [Database, RulesService, OrganizationSettings, CLOCK, ModuleRef],
      useFactory: (db: Database, rules: RulesService, settings: OrganizationSettings, clock: Clock, moduleRef: ModuleRef) =>
        new DryRunService(db, rules, dataApiTables(moduleRef), (id, keys) => settings.plainMany(id, keys), clock),
    },
    {
      provide: RuleWebhook,
      inject: [CONFIG, { token: RULE_WEBHOOK_TIMING, optional: true }],
      useFactory: (config: Config, timing: WebhookTiming | undefined) =>
        new RuleWebhook(createOutboundClient(config, { timeoutMs: (timing ?? WEBHOOK_TIMING).attemptTimeoutMs, keepAlive: false }), timing ?? WEBHOOK_TIMING),
    },
    {
      provide: RuleActions,
      inject: [Database, CommandBus, PacedSender, BotRuntime, CLOCK],
      useFactory: (db: Database, commands: CommandBus, paced: PacedSender, bots: BotRuntime, clock: Clock) => new RuleActions(db, commands, paced, bots, clock),
    },
    {
      provide: RuleEngine,
      inject: [Database, OrganizationSettings, CLOCK, ModuleRef, RuleActions],
      useFactory: (db: Database, settings: OrganizationSettings, clock: Clock, moduleRef: ModuleRef, actions: RuleActions) =>
        new RuleEngine(db, dataApiTables(moduleRef), (id, keys) => settings.plainMany(id, keys), clock, actions),
    },
    { provide: TimerArming, inject: [Database], useFactory: (db: Database) => new TimerArming(db) },
    {
      provide: TimerPass,
      inject: [Database, RuleEngine, CLOCK],
      useFactory: (db: Database, engine: RuleEngine, clock: Clock) => new TimerPass(db, engine, clock),
    },
    RuleEngineConsumer,
    RuleWebhookDelivery,
    RulesWriter,
    RunLogPurge,
    BotFlowsService,
    BotFlowsWriter,
    {
      provide: BotSteps,
      inject: [Database, CommandBus, PacedSender, RuleWebhook, CLOCK],
      useFactory: (db: Database, commands: CommandBus, paced: PacedSender, webhook: RuleWebhook, clock: Clock) =>
        new BotSteps(db, commands, paced, webhook, clock),
    },
    {
      provide: BotRuntime,
      inject: [Database, OrganizationSettings, CLOCK, ModuleRef, BotSteps],
      useFactory: (db: Database, settings: OrganizationSettings, clock: Clock, moduleRef: ModuleRef, steps: BotSteps) =>
        new BotRuntime(db, dataApiTables(moduleRef), (id, keys) => settings.plainMany(id, keys), clock, steps),
    },
    BotConsumer,
    BotSessionsPass,
  ],
  exports: [RulesService, DryRunService, RuleEngine, BotRuntime],
})
export class AutomationModule {}
