import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { DomainEvent } from '@engage/shared-kernel';
import { consumeIdempotentBatch, consumeOnce, Database, EventSubscriptions } from '@engage/platform';
import { DealService } from './deal.service';
import { TimelineService } from './timeline.service';
import { TIMELINE_SOURCES, timelineEntryOf } from '../domain/timeline';

// Every event the CRM consumes, in one place.
@Injectable()
export class CrmSubscriptions implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly deals: DealService,
    private readonly timeline: TimelineService,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: 'crm.default-pipeline',
      sources: ['identity'],
      handle: async (event) => {
        if (event.type !== 'organization.created') return;
        await consumeOnce(this.db, 'crm.default-pipeline', event, async (tx) => {
          await this.deals.ensureDefaultPipeline(tx);
        });
      },
    });
    // The timelines of contacts and deals, from the CRM's own events and other contexts'. A
    // redelivered event changes nothing on its own: one entry per (organization, event) (unique,
    // inserted ON CONFLICT DO NOTHING), and a deal's last activity only ever moves forward.
    const recordAll = (events: DomainEvent[]) => {
      const entries = new Map(events.flatMap((event) => {
        const entry = timelineEntryOf(event);
        return entry ? [[event.id, entry] as const] : [];
      }));
      if (entries.size === 0) return Promise.resolve();
      return consumeIdempotentBatch(this.db, events.filter((event) => entries.has(event.id)), (tx, batch) =>
        this.timeline.recordMany(tx, batch.map((event) => entries.get(event.id)!)),
      );
    };
    this.subscriptions.add({
      consumer: 'crm.timeline',
      sources: TIMELINE_SOURCES,
      handle: (event) => recordAll([event]),
      // A relay batch in one transaction per organization and two statements.
      handleBatch: recordAll,
    });
  }
}
