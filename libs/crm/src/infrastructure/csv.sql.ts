import { selectList } from '@engage/platform';
import { CONTACTS } from '../domain/contact';
import { COMPANY_COLUMNS } from './company.sql';

// SQL of CSV imports and exports (inside Database.inTenant: row-level security applies).

export const IMPORT_JOB_COLUMNS = `id, entity, status, processed, created, updated, failed, errors, error, created_by, created_at, finished_at`;

export const INSERT_IMPORT_JOB = `INSERT INTO import_jobs (organization_id, entity, created_by) VALUES (app_org_id(), $1, $2) RETURNING ${IMPORT_JOB_COLUMNS}`;

// Counters grow by one batch; errors keep the first $7.
export const ADD_IMPORT_PROGRESS = `
  UPDATE import_jobs SET processed = processed + $2, created = created + $3, updated = updated + $4, failed = failed + $5,
         errors = (SELECT coalesce(jsonb_agg(e.value ORDER BY e.n), '[]'::jsonb)
                   FROM (SELECT value, n FROM jsonb_array_elements(errors || $6::jsonb) WITH ORDINALITY AS a(value, n) ORDER BY n LIMIT $7) e)
  WHERE id = $1`;

export const FINISH_IMPORT_JOB = `UPDATE import_jobs SET status = $2, error = $3, finished_at = now() WHERE id = $1 RETURNING ${IMPORT_JOB_COLUMNS}`;

export const IMPORT_JOB = `SELECT ${IMPORT_JOB_COLUMNS} FROM import_jobs WHERE id = $1`;

export const RECENT_IMPORT_JOBS = `SELECT ${IMPORT_JOB_COLUMNS} FROM import_jobs ORDER BY created_at DESC, id LIMIT 20`;

// The contact holding any of the phones $1, else the oldest with any of the emails $2: one round
// trip per imported row.
export const CONTACT_MATCH = `
  SELECT id, phones, emails, tags FROM (
    (SELECT 0 AS rank, c.id, c.phones, c.emails, c.tags, c.created_at
     FROM contact_phones p JOIN contacts c ON c.organization_id = p.organization_id AND c.id = p.contact_id
     WHERE p.organization_id = app_org_id() AND p.phone = ANY($1::text[]) ORDER BY c.created_at, c.id LIMIT 1)
    UNION ALL
    (SELECT 1, c.id, c.phones, c.emails, c.tags, c.created_at
     FROM contact_emails e JOIN contacts c ON c.organization_id = e.organization_id AND c.id = e.contact_id
     WHERE e.organization_id = app_org_id() AND e.email = ANY($2::text[]) ORDER BY c.created_at, c.id LIMIT 1)
  ) found ORDER BY rank LIMIT 1`;

export const COMPANY_MATCH = `
  SELECT id, phones, emails, tags FROM companies
  WHERE ($1::text[] <> '{}' AND phones && $1::text[]) OR ($2::text[] <> '{}' AND emails && $2::text[]) OR ($3::text IS NOT NULL AND lower(name) = lower($3))
  ORDER BY (phones && $1::text[]) DESC, (emails && $2::text[]) DESC, created_at, id LIMIT 1`;

// Keyset pages for exports: ($1, $2) the last row's created_at (as text: microseconds kept) and id,
// $3 the page size.
export const CONTACTS_EXPORT_PAGE = `
  SELECT ${selectList(CONTACTS)}, created_at::text AS page_key FROM contacts
  WHERE $1::timestamptz IS NULL OR (created_at, id) > ($1::timestamptz, $2::uuid) ORDER BY created_at, id LIMIT $3`;

export const COMPANIES_EXPORT_PAGE = `
  SELECT ${COMPANY_COLUMNS}, created_at::text AS page_key FROM companies WHERE $1::timestamptz IS NULL OR (created_at, id) > ($1::timestamptz, $2::uuid) ORDER BY created_at, id LIMIT $3`;
