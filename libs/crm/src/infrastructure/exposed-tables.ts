import { tableDefinition, type Tx } from '@engage/platform';
import { COMPANIES } from '../domain/company';
import { CONTACTS } from '../domain/contact';
import { DEALS } from '../domain/deal';
import { isCountryCode, toE164 } from '../domain/phone';
import { ORGANIZATION_COUNTRY } from './contact.sql';
import { DEAL_OWNER_HISTORY, DEAL_STAGE_HISTORY, NOTES, PIPELINE_STAGES, PIPELINES, TASKS, TIMELINE_ENTRIES } from './crm-columns';

// The CRM tables the data API serves (/rest/v1 and the record proxy), with their column types.
// Every table's columns come from its declaration (contacts, companies and deals in domain/, the
// others in crm-columns.ts); the data API's registry checks the result at start-up.

// A filter on contacts.phones (eq, cs, ov...) finds the contact whatever form the searched number is
// written in: each item is read as E.164 with the organization's default country, as phones are
// stored; an item that is not a phone number is searched as written.
async function phonesAsStored(tx: Tx, values: string[]): Promise<string[]> {
  const [row] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY);
  const country = isCountryCode(row?.country) ? row.country : undefined;
  return values.map((value) => toE164(value, country) ?? value);
}

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

const links = [
  { column: 'contact_id', references: { table: 'contacts', column: 'id' } },
  { column: 'company_id', references: { table: 'companies', column: 'id' } },
  { column: 'deal_id', references: { table: 'deals', column: 'id' } },
] as const;
const linksOf = (table: string) => links.map((link) => ({ name: `${table}_${link.column.replace('_id', '')}_fkey`, ...link }));

const tasks = tableDefinition(TASKS, {
  writable: true,
  foreignKeys: [...linksOf('tasks'), { name: 'tasks_assignee_fkey', column: 'assignee_id', references: { table: 'profiles', column: 'id' } }],
});

const notes = tableDefinition(NOTES, {
  writable: true,
  foreignKeys: [...linksOf('notes'), { name: 'notes_author_fkey', column: 'author_id', references: { table: 'profiles', column: 'id' } }],
});

// Read-only: written by the CRM's event consumer.
const timelineEntries = tableDefinition(TIMELINE_ENTRIES, {
  foreignKeys: [
    { name: 'timeline_entries_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
    { name: 'timeline_entries_deal_fkey', column: 'deal_id', references: { table: 'deals', column: 'id' } },
    { name: 'timeline_entries_company_fkey', column: 'company_id', references: { table: 'companies', column: 'id' } },
  ],
});

// Writable ones (`writable: true`) are bound to their writers in the CRM's manifest (index.ts).
export const CRM_TABLES = {
  contacts,
  companies,
  deals,
  pipelines: tableDefinition(PIPELINES),
  pipelineStages: tableDefinition(PIPELINE_STAGES),
  stageHistory: tableDefinition(DEAL_STAGE_HISTORY),
  ownerHistory: tableDefinition(DEAL_OWNER_HISTORY),
  tasks,
  notes,
  timelineEntries,
};
