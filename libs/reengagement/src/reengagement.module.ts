import { Global, Module } from '@nestjs/common';
import type pino from 'pino';
import { CALLS_SETTINGS } from '@engage/calls';
import { ContactService, CrmModule } from '@engage/crm';
import { IdentityModule } from '@engage/identity';
import { PacedSender, ConversationService, MessagingModule } from '@engage/messaging';
import { CONFIG, type Config, createOutboundClient, Database, type OutboundClient, PLATFORM_LOG, SecretBox, settingsOf } from '@engage/platform';
import { CLOCK, type Clock, CUSTOMER_AI_RESOLVER, systemClock } from '@engage/shared-kernel';
import { AiTargets } from './application/ai-targets';
import { CustomerAiKeys } from './application/customer-ai';
import { Drafter } from './application/drafter';
import { NudgeSender } from './application/nudge-sender';
import { ReplyConsumer } from './application/reply-consumer';
import { NudgeOutcomes } from './application/nudge-outcomes';
import { ReviewService } from './application/review.service';
import { ReengagementScheduler } from './application/scheduler';
import { ReengagementSettings } from './application/settings.service';
import { ReengagementController } from './http/reengagement.controller';
import { ChatCompletions } from './infrastructure/chat-completions';

// Calls to a customer's own AI address go through the SSRF-safe client (replaceable in tests).
export const REENGAGEMENT_OUTBOUND = Symbol('REENGAGEMENT_OUTBOUND');
const AI_TIMEOUT_MS = 30_000;

// AI re-engagement (docs/reengagement.md): settings, the minute's scheduler pass, drafts through
// the OpenAI-compatible AI (the calls context's AI_* settings are the platform default), review,
// and the consumer of customers' replies. Global: its CUSTOMER_AI_RESOLVER is what other contexts'
// AI features (call analysis) ask for an organization's own key.
@Global()
@Module({
  imports: [IdentityModule, CrmModule, MessagingModule],
  controllers: [ReengagementController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    {
      provide: REENGAGEMENT_OUTBOUND,
      inject: [CONFIG],
      useFactory: (config: Config) => createOutboundClient(config, { keepAlive: false, allowHttpForAllowedHosts: true, maxBodyBytes: 1024 * 1024 }),
    },
    {
      provide: AiTargets,
      inject: [CONFIG, SecretBox],
      useFactory: (config: Config, box: SecretBox) => {
        const s = settingsOf(config, CALLS_SETTINGS);
        return new AiTargets({ baseUrl: s.AI_BASE_URL, apiKey: s.AI_API_KEY, model: s.AI_MODEL }, box);
      },
    },
    { provide: ChatCompletions, inject: [REENGAGEMENT_OUTBOUND], useFactory: (outbound: OutboundClient) => new ChatCompletions(outbound, AI_TIMEOUT_MS) },
    {
      provide: ReengagementSettings,
      inject: [Database, SecretBox, AiTargets, ChatCompletions, REENGAGEMENT_OUTBOUND],
      useFactory: (db: Database, box: SecretBox, targets: AiTargets, ai: ChatCompletions, outbound: OutboundClient) =>
        new ReengagementSettings(db, box, targets, ai, outbound),
    },
    {
      provide: Drafter,
      inject: [ConversationService, ContactService, AiTargets, ChatCompletions],
      useFactory: (c: ConversationService, contacts: ContactService, targets: AiTargets, ai: ChatCompletions) => new Drafter(c, contacts, targets, ai),
    },
    {
      provide: NudgeSender,
      inject: [Database, PacedSender, CLOCK],
      useFactory: (db: Database, outbound: PacedSender, clock: Clock) => new NudgeSender(db, outbound, clock),
    },
    {
      provide: ReengagementScheduler,
      inject: [Database, Drafter, NudgeSender, CLOCK, PLATFORM_LOG],
      useFactory: (db: Database, drafter: Drafter, sender: NudgeSender, clock: Clock, log: pino.Logger) =>
        new ReengagementScheduler(db, drafter, sender, clock, log),
    },
    {
      provide: ReviewService,
      inject: [Database, NudgeSender, ConversationService],
      useFactory: (db: Database, sender: NudgeSender, conversations: ConversationService) => new ReviewService(db, sender, conversations),
    },
    ReplyConsumer,
    NudgeOutcomes,
    {
      provide: CUSTOMER_AI_RESOLVER,
      inject: [Database, AiTargets, REENGAGEMENT_OUTBOUND],
      useFactory: (db: Database, targets: AiTargets, outbound: OutboundClient) => new CustomerAiKeys(db, targets, outbound),
    },
  ],
  exports: [ReengagementScheduler, ReengagementSettings, CUSTOMER_AI_RESOLVER],
})
export class ReengagementModule {}
