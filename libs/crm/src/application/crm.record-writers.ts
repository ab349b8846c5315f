import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DomainError } from '@engage/shared-kernel';
import { RecordWriters } from '@engage/platform';
import { CompanyService } from './company.service';
import { ContactService } from './contact.service';
import { DealService } from './deal.service';
import { parseDealFields } from '../domain/deal';

// Writes through the data API (/rest/v1 and the record proxy) run the CRM's own rules: E.164
// phones, duplicate guards, stage mapping, histories and events.
@Injectable()
export class CrmRecordWriters implements OnModuleInit {
  constructor(
    private readonly writers: RecordWriters,
    private readonly contacts: ContactService,
    private readonly companies: CompanyService,
    private readonly deals: DealService,
  ) {}

  onModuleInit(): void {
    this.writers.register('contacts', {
      create: (tx, ctx, body) => this.contacts.createIn(tx, ctx, body),
      update: (tx, ctx, id, body) => this.contacts.updateIn(tx, ctx, id, body),
      remove: (tx, ctx, id) => this.contacts.removeIn(tx, ctx, id),
    });
    this.writers.register('deals', {
      create: (tx, ctx, body) => this.deals.createIn(tx, ctx, body),
      update: (tx, ctx, id, body) => this.deals.updateIn(tx, ctx, id, body, parseDealFields(body)),
      remove: (tx, ctx, id) => this.deals.removeIn(tx, ctx, id),
    });
    this.writers.register('companies', {
      create: (tx, ctx, body) => this.companies.createIn(tx, ctx, body),
      update: async () => {
        throw new DomainError('method_not_allowed', 'PGRST117', 'Updating companies through the data API is not supported yet', undefined, 'merge duplicates with /functions/v1/find-duplicate-companies');
      },
      remove: (tx, ctx, id) => this.companies.removeIn(tx, ctx, id),
    });
  }
}
