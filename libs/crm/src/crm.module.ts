import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { IdentityModule } from '@engage/identity';
import { Database } from '@engage/platform';
import { ContactService } from './application/contact.service';
import { MobileContactsController } from './http/mobile-contacts.controller';
import { CompanyService } from './application/company.service';
import { CompaniesController } from './http/companies.controller';
import { DealService } from './application/deal.service';
import { DealsController } from './http/deals.controller';
import { CrmSubscriptions } from './application/crm.subscriptions';
import { DealReassignment } from './application/deal-reassignment';
import { CRM_WRITERS } from './application/crm.record-writers';
import { ActivityRecordService } from './application/activity-records.service';
import { TimelineService } from './application/timeline.service';
import { TimelineController } from './http/timeline.controller';
import { CsvImportService } from './application/csv-import.service';
import { CsvExportService } from './application/csv-export.service';
import { CsvController } from './http/csv.controller';
import { CsvBodyParser } from './http/csv-body.parser';
import { CRM_COMMAND_HANDLERS } from './application/contact-commands';
import { DEAL_COMMAND_HANDLERS } from './application/deal-commands';

@Module({
  imports: [IdentityModule, CqrsModule.forRoot()],
  controllers: [MobileContactsController, CompaniesController, DealsController, TimelineController, CsvController],
  providers: [
    { provide: ContactService, inject: [Database], useFactory: (db: Database) => new ContactService(db) },
    { provide: CompanyService, inject: [Database], useFactory: (db: Database) => new CompanyService(db) },
    { provide: DealService, inject: [Database], useFactory: (db: Database) => new DealService(db) },
    { provide: ActivityRecordService, inject: [Database], useFactory: (db: Database) => new ActivityRecordService(db) },
    { provide: TimelineService, inject: [Database], useFactory: (db: Database) => new TimelineService(db) },
    {
      provide: CsvImportService,
      inject: [Database, ContactService, CompanyService],
      useFactory: (db: Database, contacts: ContactService, companies: CompanyService) => new CsvImportService(db, contacts, companies),
    },
    { provide: CsvExportService, inject: [Database], useFactory: (db: Database) => new CsvExportService(db) },
    CsvBodyParser,
    CrmSubscriptions,
    DealReassignment,
    ...CRM_WRITERS,
    // Commands other contexts send (automation's actions), on the command bus.
    ...CRM_COMMAND_HANDLERS,
    ...DEAL_COMMAND_HANDLERS,
  ],
  exports: [ContactService, CompanyService, DealService, DealReassignment, ActivityRecordService, TimelineService],
})
export class CrmModule {}
