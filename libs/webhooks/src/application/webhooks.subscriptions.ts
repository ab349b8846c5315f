import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { consumeIdempotentBatch, Database, EventSubscriptions } from '@engage/platform';
import { CLOCK, type Clock, type DomainEvent } from '@engage/shared-kernel';
import { deliveryBody, deliveryData, isWebhookEventKind, WEBHOOK_EVENT_SOURCES } from '../domain/event-kinds';
import { ENQUEUE_FOR_EVENTS } from '../infrastructure/enqueue.sql';
import { DeliveryWorker } from './delivery.worker';

export const DELIVERIES_CONSUMER = 'webhooks.deliveries';

// Every event of a §6 kind becomes one delivery per active configuration subscribed to it.
@Injectable()
export class WebhooksSubscriptions implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly worker: DeliveryWorker,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    // Deliveries are unique per (configuration, event) and queued ON CONFLICT DO NOTHING, so a
    // redelivered event queues nothing twice without a processed_events row of its own.
    const enqueue = async (events: DomainEvent[]) => {
      const kinds = events.filter((event) => isWebhookEventKind(event.type));
      if (kinds.length === 0) return;
      let queued = 0;
      await consumeIdempotentBatch(this.db, kinds, async (tx, batch) => {
        const bodies = batch.map((event) => deliveryBody(event.type, event.occurredAt, deliveryData(event.type, event.payload)));
        queued += (await tx.query(ENQUEUE_FOR_EVENTS, [batch.map((event) => event.id), batch.map((event) => event.type), bodies, this.clock.now()], { prepare: true })).length;
      });
      if (queued > 0) this.worker.wake();
    };
    this.subscriptions.add({
      consumer: DELIVERIES_CONSUMER,
      sources: [...WEBHOOK_EVENT_SOURCES],
      handle: (event) => enqueue([event]),
      // A relay batch: one transaction per organization, one statement for its deliveries.
      handleBatch: enqueue,
    });
  }
}
