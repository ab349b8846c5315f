import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { OutboxRelay } from '../events/outbox-relay';
import { EventSubscriptions } from './event-subscriptions';
import { PLATFORM_LOG, PLATFORM_RUNTIME } from './tokens';
import type { PlatformRuntime } from './platform-runtime';

// The worker side of events: connect the bus with every registered consumer, then relay the outbox.
@Injectable()
export class EventsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly relay: OutboxRelay;

  constructor(
    @Inject(PLATFORM_RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(PLATFORM_LOG) private readonly log: Logger,
    private readonly subscriptions: EventSubscriptions,
  ) {
    this.relay = new OutboxRelay(runtime.db, runtime.bus, runtime.signal, {
      pollMs: runtime.config.OUTBOX_POLL_MS,
      log: (message, error) => this.log.warn({ err: error }, message),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const subscription of this.subscriptions.all()) await this.runtime.bus.subscribe(subscription);
    await this.runtime.bus.start();
    await this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
    await this.runtime.bus.stop();
  }
}
