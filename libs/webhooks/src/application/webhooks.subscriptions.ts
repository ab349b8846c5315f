import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { consumeOnce, consumeOnceBatch, Database, EventSubscriptions } from '@engage/platform';
import { CLOCK, type Clock } from '@engage/shared-kernel';
import { deliveryBody, deliveryData, isWebhookEventKind, WEBHOOK_EVENT_SOURCES } from '../domain/event-kinds';
import { ENQUEUE_FOR_EVENT } from '../infrastructure/webhook.sql';
import { ENQUEUE_FOR_EVENTS } from '../infrastructure/enqueue.sql';
import { DeliveryWorker } from './delivery.worker';

export const DELIVERIES_CONSUMER = 'webhooks.deliveries';

// Every event of a §6 kind becomes one delivery per active configuration subscribed to it, in the
// same transaction that marks the event consumed (a redelivered event queues nothing twice).
@Injectable()
export class WebhooksSubscriptions implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly worker: DeliveryWorker,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: DELIVERIES_CONSUMER,
      sources: [...WEBHOOK_EVENT_SOURCES],
      handle: async (event) => {
        if (!isWebhookEventKind(event.type)) return;
        let queued = 0;
        await consumeOnce(this.db, DELIVERIES_CONSUMER, event, async (tx) => {
          const body = deliveryBody(event.type, event.occurredAt, deliveryData(event.type, event.payload));
          queued = (await tx.query(ENQUEUE_FOR_EVENT, [event.id, event.type, body, this.clock.now()])).length;
        });
        if (queued > 0) this.worker.wake();
      },
      // A relay batch: one transaction per organization, one statement for its deliveries.
      handleBatch: async (events) => {
        const kinds = events.filter((event) => isWebhookEventKind(event.type));
        if (kinds.length === 0) return;
        let queued = 0;
        await consumeOnceBatch(this.db, DELIVERIES_CONSUMER, kinds, async (tx, fresh) => {
          const bodies = fresh.map((event) => deliveryBody(event.type, event.occurredAt, deliveryData(event.type, event.payload)));
          queued += (await tx.query(ENQUEUE_FOR_EVENTS, [fresh.map((event) => event.id), fresh.map((event) => event.type), bodies, this.clock.now()], { prepare: true })).length;
        });
        if (queued > 0) this.worker.wake();
      },
    });
  }
}
