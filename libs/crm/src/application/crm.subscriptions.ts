import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { DomainEvent } from '@engage/shared-kernel';
import { ORGANIZATION_CREATED } from '@engage/identity';
import { consumeIdempotentBatch, consumeOnce, Database, EventCatalogue, EventSubscriptions } from '@engage/platform';
import { DealService } from './deal.service';
import { TimelineService } from './timeline.service';
import { timelineEntryOf } from '../domain/timeline';

// Every event the CRM consumes, in one place.
@Injectable()
export class CrmSubscriptions implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly deals: DealService,
    private readonly timeline: TimelineService,
    private readonly catalogue: EventCatalogue,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: 'crm.default-pipeline',
      sources: [ORGANIZATION_CREATED.source],
      handle: async (event) => {
        if (event.type !== ORGANIZATION_CREATED.name) return;
        await consumeOnce(this.db, 'crm.default-pipeline', event, async (tx) => {
          await this.deals.ensureDefaultPipeline(tx);
        });
      },
    });
    // The timelines of contacts and deals, from every event whose producer declared a timeline
    // projection (the catalogue: the CRM's own events and other contexts'). A
    // redelivered event changes nothing on its own: one entry per (organization, event) (unique,
    // inserted ON CONFLICT DO NOTHING), and a deal's last activity only ever moves forward.
    const recordAll = (events: DomainEvent[]) => {
      const entries = new Map(
        events.flatMap((event) => {
          const entry = timelineEntryOf(event, this.catalogue.of(event));
          return entry ? [[event.id, entry] as const] : [];
        }),
      );
      if (entries.size === 0) return Promise.resolve();
      return consumeIdempotentBatch(
        this.db,
        events.filter((event) => entries.has(event.id)),
        (tx, batch) =>
          this.timeline.recordMany(
            tx,
            batch.map((event) => entries.get(event.id)!),
          ),
      );
    };
    const sources = this.catalogue.sourcesOf(this.catalogue.all().filter((contract) => contract.timeline));
    if (sources.length === 0) return;
    this.subscriptions.add({
      consumer: 'crm.timeline',
      sources,
      handle: (event) => recordAll([event]),
      // A relay batch in one transaction per organization and two statements.
      handleBatch: recordAll,
    });
  }
}
