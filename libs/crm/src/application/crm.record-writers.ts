import { Injectable } from '@nestjs/common';
import type { RecordWriter, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { CompanyService } from './company.service';
import { ContactService } from './contact.service';
import { DealService } from './deal.service';
import { ActivityRecordService } from './activity-records.service';
import { parseDealFields } from '../domain/deal';

// Writes through the data API (/rest/v1 and the record proxy) run the CRM's own rules: E.164
// phones, duplicate guards, stage mapping, histories and events. Each is bound to its table in
// the CRM's manifest (index.ts).
type Body = Record<string, unknown>;

@Injectable()
export class ContactsWriter implements RecordWriter {
  constructor(private readonly contacts: ContactService) {}
  create = (tx: Tx, ctx: RequestContext, body: Body) => this.contacts.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Body) => this.contacts.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.contacts.removeIn(tx, ctx, id);
}

@Injectable()
export class DealsWriter implements RecordWriter {
  constructor(private readonly deals: DealService) {}
  create = (tx: Tx, ctx: RequestContext, body: Body) => this.deals.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Body) => this.deals.updateIn(tx, ctx, id, body, parseDealFields(body));
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.deals.removeIn(tx, ctx, id);
}

@Injectable()
export class CompaniesWriter implements RecordWriter {
  constructor(private readonly companies: CompanyService) {}
  create = (tx: Tx, ctx: RequestContext, body: Body) => this.companies.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Body) => this.companies.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.companies.removeIn(tx, ctx, id);
}

@Injectable()
export class TasksWriter implements RecordWriter {
  constructor(private readonly activity: ActivityRecordService) {}
  create = (tx: Tx, ctx: RequestContext, body: Body) => this.activity.createTaskIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Body) => this.activity.updateTaskIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.activity.removeTaskIn(tx, ctx, id);
}

@Injectable()
export class NotesWriter implements RecordWriter {
  constructor(private readonly activity: ActivityRecordService) {}
  create = (tx: Tx, ctx: RequestContext, body: Body) => this.activity.createNoteIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Body) => this.activity.updateNoteIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.activity.removeNoteIn(tx, ctx, id);
}

export const CRM_WRITERS = [ContactsWriter, DealsWriter, CompaniesWriter, TasksWriter, NotesWriter];
