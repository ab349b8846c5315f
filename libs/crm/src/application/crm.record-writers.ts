import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RecordWriters } from '@engage/platform';
import { CompanyService } from './company.service';
import { ContactService } from './contact.service';
import { DealService } from './deal.service';
import { ActivityRecordService } from './activity-records.service';
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
    private readonly activity: ActivityRecordService,
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
      update: (tx, ctx, id, body) => this.companies.updateIn(tx, ctx, id, body),
      remove: (tx, ctx, id) => this.companies.removeIn(tx, ctx, id),
    });
    this.writers.register('tasks', {
      create: (tx, ctx, body) => this.activity.createTaskIn(tx, ctx, body),
      update: (tx, ctx, id, body) => this.activity.updateTaskIn(tx, ctx, id, body),
      remove: (tx, ctx, id) => this.activity.removeTaskIn(tx, ctx, id),
    });
    this.writers.register('notes', {
      create: (tx, ctx, body) => this.activity.createNoteIn(tx, ctx, body),
      update: (tx, ctx, id, body) => this.activity.updateNoteIn(tx, ctx, id, body),
      remove: (tx, ctx, id) => this.activity.removeNoteIn(tx, ctx, id),
    });
  }
}
