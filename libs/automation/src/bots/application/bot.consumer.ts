import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { defineJob, defineSchedule, EventSubscriptions, type JobHandler } from '@engage/platform';
import { MESSAGE_RECEIVED, MESSAGE_SENT } from '@engage/messaging';
import { CLOCK, type Clock, type DomainEvent, type EventContract } from '@engage/shared-kernel';
import { BotRuntime } from './bot-runtime';

export const BOT_CONSUMER = 'automation.bots';
// What the bots read of messaging's events: customers' messages, and sent messages (an agent's reply).
export const BOT_EVENTS = [MESSAGE_RECEIVED, MESSAGE_SENT] as EventContract[];
const BOT_EVENT_NAMES = BOT_EVENTS.map((contract) => contract.name);

// The bot runtime on the bus: messaging's events one after another in the order the bus hands
// them. A redelivered message is not taken twice (the answer being gathered holds each message once;
// a session starts once per conversation).
@Injectable()
export class BotConsumer implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly runtime: BotRuntime,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: BOT_CONSUMER,
      sources: ['messaging'],
      handle: (event) => this.handle(event),
      handleBatch: async (events) => {
        for (const event of events) await this.handle(event);
      },
    });
  }

  onModuleDestroy(): void {
    this.runtime.close();
  }

  private async handle(event: DomainEvent): Promise<void> {
    if (BOT_EVENT_NAMES.includes(event.type)) await this.runtime.handle(event);
  }
}

// Every minute: sessions past expire_minutes expire, ask timeouts fire, answers a stopped process left are taken.
@Injectable()
export class BotSessionsPass implements JobHandler {
  constructor(
    private readonly runtime: BotRuntime,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  handle(): Promise<number> {
    return this.runtime.sweep(this.clock.now());
  }
}

export const botSchedules = [defineSchedule({ job: defineJob({ name: 'automation.bot-sessions', handler: BotSessionsPass }), everyMs: 60_000 })];
