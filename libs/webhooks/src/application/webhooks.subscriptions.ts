import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { consumeIdempotentBatch, Database, EventCatalogue, EventSubscriptions } from '@engage/platform';
import { CLOCK, type Clock, type DomainEvent, webhookData } from '@engage/shared-kernel';
import { deliveryBody } from '../domain/event-kinds';
import { ENQUEUE_FOR_EVENTS } from '../infrastructure/enqueue.sql';
import { DeliveryWorker } from './delivery.worker';

export const DELIVERIES_CONSUMER = 'webhooks.deliveries';

// Every event of a §6 kind (an event declared with a webhook contract, from the catalogue) becomes
// one delivery per active configuration subscribed to it; its `data` is the contract's public shape.
@Injectable()
export class WebhooksSubscriptions implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly worker: DeliveryWorker,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly catalogue: EventCatalogue,
  ) {}

  onModuleInit(): void {
    // Deliveries are unique per (configuration, event) and queued ON CONFLICT DO NOTHING, so a
    // redelivered event queues nothing twice without a processed_events row of its own.
    const enqueue = async (events: DomainEvent[]) => {
      const data = new Map(
        events.flatMap((event) => {
          const contract = this.catalogue.of(event);
          const shaped = contract && webhookData(contract, event.payload);
          return shaped ? [[event.id, shaped] as const] : [];
        }),
      );
      const kinds = events.filter((event) => data.has(event.id));
      if (kinds.length === 0) return;
      let queued = 0;
      await consumeIdempotentBatch(this.db, kinds, async (tx, batch) => {
        const bodies = batch.map((event) => deliveryBody(event.type, event.occurredAt, data.get(event.id)!));
        queued += (
          await tx.query(ENQUEUE_FOR_EVENTS, [batch.map((event) => event.id), batch.map((event) => event.type), bodies, this.clock.now()], { prepare: true })
        ).length;
      });
      if (queued > 0) this.worker.wake();
    };
    const sources = this.catalogue.sourcesOf(this.catalogue.webhookKinds());
    if (sources.length === 0) return;
    this.subscriptions.add({
      consumer: DELIVERIES_CONSUMER,
      sources,
      handle: (event) => enqueue([event]),
      // A relay batch: one transaction per organization, one statement for its deliveries.
      handleBatch: enqueue,
    });
  }
}
