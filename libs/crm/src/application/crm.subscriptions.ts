import { Injectable, type OnModuleInit } from '@nestjs/common';
import { consumeOnce, consumeOnceBatch, Database, EventSubscriptions } from '@engage/platform';
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
    // The timelines of contacts and deals, from the CRM's own events and other contexts'.
    this.subscriptions.add({
      consumer: 'crm.timeline',
      sources: TIMELINE_SOURCES,
      handle: async (event) => {
        const entry = timelineEntryOf(event);
        if (!entry) return;
        await consumeOnce(this.db, 'crm.timeline', event, (tx) => this.timeline.record(tx, entry));
      },
      // A relay batch in one transaction per organization and two statements.
      handleBatch: async (events) => {
        const entries = new Map(events.flatMap((event) => {
          const entry = timelineEntryOf(event);
          return entry ? [[event.id, entry] as const] : [];
        }));
        if (entries.size === 0) return;
        await consumeOnceBatch(this.db, 'crm.timeline', events.filter((event) => entries.has(event.id)), (tx, fresh) =>
          this.timeline.recordMany(tx, fresh.map((event) => entries.get(event.id)!)),
        );
      },
    });
  }
}
