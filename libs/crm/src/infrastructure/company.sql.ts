import { namedColumns, selectList } from '@engage/platform';
import { COMPANIES, COMPANY_FIELDS } from '../domain/company';
import { DEAL_COLUMNS } from './deal.sql';

// SQL of companies (inside Database.inTenant: row-level security applies). Reads and writes name
// their columns from the declaration (COMPANIES); parameters follow COMPANY_WRITE's names.

export const COMPANY_COLUMNS = selectList(COMPANIES);
export const COMPANY_WRITE = namedColumns(COMPANIES, COMPANY_FIELDS);
const W = COMPANY_WRITE;

export const INSERT_COMPANY = `INSERT INTO companies (organization_id, ${W.list}) VALUES (app_org_id(), ${W.placeholders(1)}) RETURNING ${COMPANY_COLUMNS}`;

export const LIST_COMPANIES = `
  SELECT (SELECT count(*) FROM companies)::int AS total,
         coalesce((SELECT json_agg(c ORDER BY lower(c.name), c.id) FROM (SELECT ${COMPANY_COLUMNS} FROM companies ORDER BY lower(name), id LIMIT $1 OFFSET $2) c), '[]'::json) AS companies`;

// Relevance: exact name, name prefix, name contains, website, industry, emails, phones; $1 the term,
// $2 and $4 its escaped contains and prefix LIKE patterns, $3 an optional country.
export const SEARCH_COMPANIES = `
  SELECT ${COMPANY_COLUMNS}, score FROM (
    SELECT c.*,
      (CASE WHEN lower(c.name) = lower($1) THEN 100 WHEN c.name ILIKE $4 ESCAPE '\\' THEN 60 WHEN c.name ILIKE $2 ESCAPE '\\' THEN 40 ELSE 0 END
       + CASE WHEN c.website ILIKE $2 ESCAPE '\\' THEN 20 ELSE 0 END
       + CASE WHEN c.industry ILIKE $2 ESCAPE '\\' THEN 15 ELSE 0 END
       + CASE WHEN EXISTS (SELECT 1 FROM unnest(c.emails) e WHERE e ILIKE $2 ESCAPE '\\') THEN 10 ELSE 0 END
       + CASE WHEN EXISTS (SELECT 1 FROM unnest(c.phones) p WHERE p LIKE $2 ESCAPE '\\') THEN 10 ELSE 0 END) AS score
    FROM companies c
    WHERE $3::text IS NULL OR lower(c.country) = lower($3) OR lower(c.address_country) = lower($3)
  ) ranked
  WHERE score > 0
  ORDER BY score DESC, lower(name), id
  LIMIT 50`;

export const DUPLICATE_KEYS = `SELECT id, name, website, phones, emails FROM companies ORDER BY created_at, id LIMIT $1`;

// Companies whose duplicate keys are missing or were computed from an older row version.
export const STALE_DUPLICATE_KEYS = `
  SELECT c.id, c.name, c.website, c.phones, c.emails, c.xmin::text::bigint AS version
  FROM companies c LEFT JOIN company_duplicate_keys k ON k.organization_id = c.organization_id AND k.company_id = c.id
  WHERE k.company_id IS NULL OR k.version <> c.xmin::text::bigint`;

// $1: [{id, version, keys}]; in id order so concurrent refreshes never deadlock.
export const SAVE_DUPLICATE_KEYS = `
  INSERT INTO company_duplicate_keys (organization_id, company_id, version, keys)
  SELECT app_org_id(), id, version, keys FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, version bigint, keys text[]) ORDER BY id
  ON CONFLICT (organization_id, company_id) DO UPDATE SET version = EXCLUDED.version, keys = EXCLUDED.keys`;

// The keys held by two or more companies, with their holders (and names, read in the same
// statement): the only rows the grouping needs.
export const SHARED_DUPLICATE_KEYS = `
  SELECT key, array_agg(c.id ORDER BY c.id) AS ids, array_agg(c.name ORDER BY c.id) AS names
  FROM company_duplicate_keys k JOIN companies c ON c.organization_id = k.organization_id AND c.id = k.company_id
  CROSS JOIN LATERAL unnest(k.keys) AS key
  GROUP BY key HAVING count(*) > 1`;

export const COMPANIES_FOR_MERGE = `SELECT ${COMPANY_COLUMNS} FROM companies WHERE id = ANY($1::uuid[]) ORDER BY created_at, id FOR UPDATE`;

export const MOVE_CONTACTS = `UPDATE contacts SET company_id = $1, updated_at = now() WHERE company_id = ANY($2::uuid[]) RETURNING *`;

// Their tasks and notes too (deleting a company would delete them).
export const MOVE_TASKS = `UPDATE tasks SET company_id = $1, updated_at = now() WHERE company_id = ANY($2::uuid[])`;
export const MOVE_NOTES = `UPDATE notes SET company_id = $1, updated_at = now() WHERE company_id = ANY($2::uuid[])`;

// The merged companies' timeline entries stay visible on the primary's timeline.
export const MOVE_TIMELINE = `UPDATE timeline_entries SET company_id = $1 WHERE company_id = ANY($2::uuid[])`;

// The merged companies' deals move to the primary.
export const MOVE_DEALS = `UPDATE deals SET company_id = $1, updated_at = now() WHERE company_id = ANY($2::uuid[]) RETURNING ${DEAL_COLUMNS}`;

export const DELETE_COMPANIES = `DELETE FROM companies WHERE id = ANY($1::uuid[])`;

export const COMPANY_FOR_UPDATE = `SELECT ${COMPANY_COLUMNS} FROM companies WHERE id = $1 FOR UPDATE`;

// $1 the id, then the fields (a merge writes the primary's merged fields with it).
export const UPDATE_COMPANY = `UPDATE companies SET ${W.assignments(2)}, updated_at = now() WHERE id = $1 RETURNING ${COMPANY_COLUMNS}`;

// Set-based writes of a CSV import batch: $1 a JSON array of records (updates carry their id).
const RECORD_COLUMNS = `id uuid, ${W.recordType}`;

export const INSERT_COMPANIES = `
  INSERT INTO companies (organization_id, ${W.list}) SELECT app_org_id(), ${W.list} FROM jsonb_to_recordset($1::jsonb) AS r(${RECORD_COLUMNS})
  RETURNING id`;

export const UPDATE_COMPANIES = `
  UPDATE companies c SET ${W.assignments('r')}, updated_at = now()
  FROM jsonb_to_recordset($1::jsonb) AS r(${RECORD_COLUMNS}) WHERE c.id = r.id
  RETURNING c.id`;

export const COMPANIES_FOR_UPDATE = `SELECT ${COMPANY_COLUMNS} FROM companies WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`;

// The names of a batch lower-cased by the database (the same lower() as the match), in order.
export const LOWER_NAMES = `SELECT coalesce(array_agg(lower(n) ORDER BY i), '{}') AS names FROM unnest($1::text[]) WITH ORDINALITY AS x(n, i)`;

// Every company a row of the batch could match: sharing one of the E.164 phones $1, one of the
// emails $2, or a lower-cased name of $3. The import ranks them per row as COMPANY_MATCH does.
// One pass over the organization's companies with hashed lookups (each "= ANY" of a long array
// is a hash probe; "&&" would compare every pair): row-level security lets only leakproof
// operators into index conditions, so neither the GIN indexes on the arrays nor the
// (organization_id, lower(name)) index can serve a tenant query.
export const COMPANY_BATCH_CANDIDATES = `
  SELECT id, phones, emails, lower(name) AS lname, extract(epoch FROM created_at)::float8 AS age FROM companies c
  WHERE lower(c.name) = ANY($3::text[])
     OR EXISTS (SELECT 1 FROM unnest(c.phones) AS p(v) WHERE p.v = ANY($1::text[]))
     OR EXISTS (SELECT 1 FROM unnest(c.emails) AS e(v) WHERE e.v = ANY($2::text[]))`;
