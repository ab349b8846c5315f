import { Injectable, type OnModuleInit } from '@nestjs/common';
import { EventSubscriptions } from '@engage/platform';
import type { DomainEvent } from '@engage/shared-kernel';
import { RULE_ENGINE_SOURCES } from '../automation.events';
import { RuleEngine } from './rule-engine';
import { TimerArming } from './timer-arming';

export const RULE_ENGINE_CONSUMER = 'automation.rules';

// The rule engine on the bus: every event of messaging, the CRM and calls, one after another in the
// order the bus hands them (an organization's events stay ordered). Message events first move their
// conversation's timers. Idempotent by the run log's unique (rule, event) key and the timers' times,
// so it needs no processed_events row.
@Injectable()
export class RuleEngineConsumer implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly engine: RuleEngine,
    private readonly timers: TimerArming,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: RULE_ENGINE_CONSUMER,
      sources: RULE_ENGINE_SOURCES,
      handle: (event) => this.handleOne(event),
      handleBatch: (events) => this.handleAll(events),
    });
  }

  // A batch: the timers moved first (one transaction per organization), then the rules run on each
  // event in order (the active rules read once per organization).
  private async handleAll(events: DomainEvent[]): Promise<void> {
    await this.timers.observeAll(events);
    await this.engine.handleAll(events);
  }

  private async handleOne(event: DomainEvent): Promise<void> {
    await this.timers.observe(event);
    await this.engine.handle(event);
  }
}
