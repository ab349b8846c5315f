import { Injectable, type OnModuleInit } from '@nestjs/common';
import { consumeOnce, Database, EventSubscriptions } from '@engage/platform';
import { DealService } from './deal.service';

// Every event the CRM consumes, in one place.
@Injectable()
export class CrmSubscriptions implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly deals: DealService,
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
  }
}
