import { tableDefinition, type Tx } from '@engage/platform';
import { COMPANIES } from '../domain/company';
import { CONTACTS } from '../domain/contact';
import { DEALS } from '../domain/deal';
import { isCountryCode, toE164 } from '../domain/phone';
import { ORGANIZATION_COUNTRY } from './contact.sql';

// The CRM tables the data API serves (/rest/v1 and the record proxy), with their column types.
// Plain data (plus one search hook): the data API's registry checks it at start-up. Contacts,
// companies and deals are derived from their column declarations (domain/).

// A filter on contacts.phones (eq, cs, ov...) finds the contact whatever form the searched number is
// written in: each item is read as E.164 with the organization's default country, as phones are
// stored; an item that is not a phone number is searched as written.
async function phonesAsStored(tx: Tx, values: string[]): Promise<string[]> {
  const [row] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY);
  const country = isCountryCode(row?.country) ? row.country : undefined;
  return values.map((value) => toE164(value, country) ?? value);
}

const timestamps = { created_at: 'timestamptz', updated_at: 'timestamptz' } as const;

// Contacts, companies and deals: their columns from their declarations (domain/), written through their writers.
const contacts = tableDefinition(CONTACTS, {
  writable: true,
  foreignKeys: [
    { name: 'contacts_company_fkey', column: 'company_id', references: { table: 'companies', column: 'id' } },
    { name: 'contacts_assignee_fkey', column: 'assignee_id', references: { table: 'profiles', column: 'id' } },
  ],
  normalizers: { phones: phonesAsStored },
});

const companies = tableDefinition(COMPANIES, { writable: true });

const deals = tableDefinition(DEALS, {
  writable: true,
  foreignKeys: [
    { name: 'deals_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
    { name: 'deals_company_fkey', column: 'company_id', references: { table: 'companies', column: 'id' } },
    { name: 'deals_owner_id_fkey', column: 'owner_id', references: { table: 'profiles', column: 'id' } },
  ],
});

const pipelines = { name: 'pipelines', columns: { id: 'uuid', organization_id: 'uuid', name: 'text', is_default: 'bool', created_at: 'timestamptz' } } as const;

const pipelineStages = {
  name: 'pipeline_stages',
  columns: { id: 'uuid', organization_id: 'uuid', pipeline_id: 'uuid', key: 'text', name: 'text', color: 'text', position: 'int', default_probability: 'int', outcome: 'text' },
} as const;

const stageHistory = {
  name: 'deal_stage_history',
  columns: { id: 'int', organization_id: 'uuid', deal_id: 'uuid', from_stage: 'text', to_stage: 'text', changed_by: 'uuid', changed_at: 'timestamptz' },
} as const;

const ownerHistory = {
  name: 'deal_owner_history',
  columns: {
    id: 'int', organization_id: 'uuid', deal_id: 'uuid', owner_id: 'uuid', started_at: 'timestamptz', ended_at: 'timestamptz', duration_seconds: 'int', reason: 'text', changed_by: 'uuid',
  },
} as const;

const links = [
  { column: 'contact_id', references: { table: 'contacts', column: 'id' } },
  { column: 'company_id', references: { table: 'companies', column: 'id' } },
  { column: 'deal_id', references: { table: 'deals', column: 'id' } },
] as const;

const tasks = {
  name: 'tasks',
  writable: true,
  columns: {
    id: 'uuid', organization_id: 'uuid', title: 'text', description: 'text', due_at: 'timestamptz', assignee_id: 'uuid', done: 'bool', done_at: 'timestamptz',
    contact_id: 'uuid', company_id: 'uuid', deal_id: 'uuid', created_by: 'uuid', ...timestamps,
  },
  foreignKeys: [...links.map((link) => ({ name: `tasks_${link.column.replace('_id', '')}_fkey`, ...link })), { name: 'tasks_assignee_fkey', column: 'assignee_id', references: { table: 'profiles', column: 'id' } }],
} as const;

const notes = {
  name: 'notes',
  writable: true,
  columns: { id: 'uuid', organization_id: 'uuid', body: 'text', author_id: 'uuid', contact_id: 'uuid', company_id: 'uuid', deal_id: 'uuid', ...timestamps },
  foreignKeys: [...links.map((link) => ({ name: `notes_${link.column.replace('_id', '')}_fkey`, ...link })), { name: 'notes_author_fkey', column: 'author_id', references: { table: 'profiles', column: 'id' } }],
} as const;

// Read-only: written by the CRM's event consumer.
const timelineEntries = {
  name: 'timeline_entries',
  columns: {
    id: 'uuid', organization_id: 'uuid', event_id: 'uuid', type: 'text', source: 'text', occurred_at: 'timestamptz', actor_id: 'uuid', contact_id: 'uuid', deal_id: 'uuid', company_id: 'uuid',
    summary: 'text', data: 'jsonb', created_at: 'timestamptz',
  },
  foreignKeys: [
    { name: 'timeline_entries_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
    { name: 'timeline_entries_deal_fkey', column: 'deal_id', references: { table: 'deals', column: 'id' } },
    { name: 'timeline_entries_company_fkey', column: 'company_id', references: { table: 'companies', column: 'id' } },
  ],
} as const;

type Exposed = { name: string; columns: Record<string, string>; foreignKeys?: readonly unknown[] };
const readableAll = <T extends Exposed>(table: T) => ({ ...table, readable: Object.keys(table.columns) });

// Writable ones (`writable: true`) are bound to their writers in the CRM's manifest (index.ts).
export const CRM_TABLES = {
  contacts,
  companies,
  deals,
  pipelines: readableAll(pipelines),
  pipelineStages: readableAll(pipelineStages),
  stageHistory: readableAll(stageHistory),
  ownerHistory: readableAll(ownerHistory),
  tasks: readableAll(tasks),
  notes: readableAll(notes),
  timelineEntries: readableAll(timelineEntries),
};
