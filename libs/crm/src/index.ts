import { defineContext, type MigrationClass } from '@engage/platform';
import { CompaniesWriter, ContactsWriter, DealsWriter, NotesWriter, TasksWriter } from './application/crm.record-writers';
import { CrmModule } from './crm.module';
import { CRM_EVENTS } from './application/crm-events';
import { crmSchedules } from './application/deal-reassignment';
import { ORGANIZATION_CREATED } from '@engage/identity';
import { CRM_TABLES as T } from './infrastructure/exposed-tables';
import { CreateCompaniesAndContacts1763800002001 } from './infrastructure/migrations/0001-create-companies-and-contacts';
import { CreatePipelinesAndDeals1763800002002 } from './infrastructure/migrations/0002-create-pipelines-and-deals';
import { CreateDealRotation1763800002003 } from './infrastructure/migrations/0003-create-deal-rotation';
import { CreateTasksAndNotes1763800002004 } from './infrastructure/migrations/0004-create-tasks-and-notes';
import { CreateTimelineEntries1763800002005 } from './infrastructure/migrations/0005-create-timeline-entries';
import { CreateImportJobs1763800002006 } from './infrastructure/migrations/0006-create-import-jobs';
import { AddTimelineCompany1763800002007 } from './infrastructure/migrations/0007-add-timeline-company';
import { IndexDealsByStage1763800002008 } from './infrastructure/migrations/0008-index-deals-by-stage';
import { CreateContactEmails1763800002009 } from './infrastructure/migrations/0009-create-contact-emails';
import { CreateCompanyDuplicateKeys1763800002010 } from './infrastructure/migrations/0010-create-company-duplicate-keys';
import { PublishAnalyticsReadViews1763800002020 } from './infrastructure/migrations/0020-publish-analytics-read-views';
import { PublishCampaignAudience1763800002040 } from './infrastructure/migrations/0040-publish-campaign-audience';
import { KeepDealClosedAt1763800002030 } from './infrastructure/migrations/0030-keep-deal-closed-at';

export { CrmModule } from './crm.module';
export { ContactService, type ContactPage } from './application/contact.service';
export type { ContactView } from './application/contact-view';
export { CompanyService, type CompanyView } from './application/company.service';
export { DealService, type DealView } from './application/deal.service';
export { toE164, normalizePhone } from './domain/phone';
export { findOrCreateContactByEmail, findOrCreateContactByPhone, findOrCreateContactsByPhones } from './application/find-or-create-contact';
export { ActivityRecordService, type TaskView, type NoteView } from './application/activity-records.service';
export { TimelineService, type TimelinePage } from './application/timeline.service';
// Commands on the command bus for other contexts' changes to contacts, notes, deals and tasks (automation's actions).
export { ChangeContactTags, SetContactField, AddNote, type ContactChange } from './application/contact-commands';
export { SetDealStage, AssignDealOwner, CreateTask, type DealChange } from './application/deal-commands';
export { CsvImportService, type ImportJob } from './application/csv-import.service';
// Formula-safe CSV lines (the contacts export's), for other contexts' exports.
export { csvLine } from './domain/csv';

export const crmMigrations: MigrationClass[] = [
  CreateCompaniesAndContacts1763800002001,
  CreatePipelinesAndDeals1763800002002,
  CreateDealRotation1763800002003,
  CreateTasksAndNotes1763800002004,
  CreateTimelineEntries1763800002005,
  CreateImportJobs1763800002006,
  AddTimelineCompany1763800002007,
  IndexDealsByStage1763800002008,
  CreateContactEmails1763800002009,
  CreateCompanyDuplicateKeys1763800002010,
  PublishAnalyticsReadViews1763800002020,
  KeepDealClosedAt1763800002030,
  // The contacts campaigns' audiences are chosen from (docs/campaigns.md).
  PublishCampaignAudience1763800002040,
];

// The CRM as the composition sees it (libs/platform/src/context/context-manifest.ts).
export const crmManifest = defineContext({
  name: 'crm',
  module: CrmModule,
  migrations: crmMigrations,
  tables: [
    { table: T.contacts, writer: ContactsWriter },
    { table: T.companies, writer: CompaniesWriter },
    { table: T.deals, writer: DealsWriter },
    { table: T.pipelines },
    { table: T.pipelineStages },
    { table: T.stageHistory },
    { table: T.ownerHistory },
    { table: T.tasks, writer: TasksWriter },
    { table: T.notes, writer: NotesWriter },
    // Written by the timeline consumer only.
    { table: T.timelineEntries },
  ],
  publishes: CRM_EVENTS,
  consumes: { events: [ORGANIZATION_CREATED], contracts: ['timeline'] },
  jobs: { schedules: crmSchedules },
});
export { crmSchedules } from './application/deal-reassignment';
export {
  CRM_EVENTS,
  CONTACT_CREATED,
  CONTACT_UPDATED,
  CONTACT_ASSIGNED,
  DEAL_CREATED,
  DEAL_UPDATED,
  DEAL_STAGE_CHANGED,
  DEAL_ASSIGNED,
  TASK_CREATED,
  TASK_COMPLETED,
  NOTE_CREATED,
} from './application/crm-events';
export type { ContactPayload, DealPayload, TaskPayload, NotePayload } from './application/crm-events';
