import type { ContactRow } from '../infrastructure/contact.sql';

// A contact as the API returns it (§2), timestamps in ISO 8601.
export type ContactView = Omit<ContactRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };

export function toContactView(row: ContactRow): ContactView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    first_name: row.first_name,
    last_name: row.last_name,
    phones: row.phones,
    emails: row.emails,
    tags: row.tags,
    description: row.description,
    company_id: row.company_id,
    assignee_id: row.assignee_id,
    source: row.source,
    opt_in_status: row.opt_in_status,
    custom_fields: row.custom_fields,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
