import { namedColumns, rowList } from '@engage/platform';
import { CONTACT_FIELDS, CONTACTS } from '../domain/contact';

// SQL of contacts. Every statement runs inside Database.inTenant, so row-level security applies.
// Writes name their columns from the declaration (CONTACTS): parameters follow CONTACT_WRITE's
// names, read from the fields by name (CONTACT_WRITE.values), never by position.

export type { ContactRow } from '../domain/contact';
export const CONTACT_WRITE = namedColumns(CONTACTS, CONTACT_FIELDS);
const W = CONTACT_WRITE;

export const ORGANIZATION_COUNTRY = `SELECT settings->>'default_country' AS country FROM organizations WHERE id = app_org_id()`;

// contact_emails follows contacts.emails in the same statement as each write of the list.
export const INSERT_CONTACT = `
  WITH ins AS (
    INSERT INTO contacts (organization_id, ${W.list}) VALUES (app_org_id(), ${W.placeholders(1)})
    RETURNING *),
  mails AS (INSERT INTO contact_emails (organization_id, email, contact_id) SELECT ins.organization_id, e, ins.id FROM ins CROSS JOIN LATERAL unnest(ins.emails) AS e ON CONFLICT DO NOTHING)
  SELECT * FROM ins`;

// Returns the phones that were free; a missing one belongs to another contact.
export const CLAIM_PHONES = `
  INSERT INTO contact_phones (organization_id, phone, contact_id)
  SELECT app_org_id(), phone, $2 FROM unnest($1::text[]) AS phone
  ON CONFLICT (organization_id, phone) DO NOTHING
  RETURNING phone`;

export const RELEASE_PHONES = `DELETE FROM contact_phones WHERE contact_id = $1`;

export const CONTACT_FOR_UPDATE = `SELECT * FROM contacts WHERE id = $1 FOR UPDATE`;

// $1 the id, then the fields. The caller holds the row's lock (CONTACT_FOR_UPDATE): emails dropped
// from the list leave contact_emails, new ones join it.
export const UPDATE_CONTACT = `
  WITH upd AS (
    UPDATE contacts SET ${W.assignments(2)}, updated_at = now()
    WHERE id = $1 RETURNING *),
  gone AS (
    DELETE FROM contact_emails WHERE organization_id = app_org_id() AND contact_id = $1 AND email <> ALL(${W.placeholderOf('emails', 2)}::text[])
    AND EXISTS (SELECT 1 FROM upd)),
  mails AS (INSERT INTO contact_emails (organization_id, email, contact_id) SELECT upd.organization_id, e, upd.id FROM upd CROSS JOIN LATERAL unnest(upd.emails) AS e ON CONFLICT DO NOTHING)
  SELECT * FROM upd`;

export const CONTACT_WITH_COMPANY = `
  SELECT c.*, CASE WHEN co.id IS NULL THEN NULL ELSE json_build_object('id', co.id, 'name', co.name) END AS company
  FROM contacts c LEFT JOIN companies co ON co.organization_id = c.organization_id AND co.id = c.company_id
  WHERE c.id = $1`;

// Many E.164 phones at once; matched_phone tells which one found the contact.
export const CONTACTS_BY_PHONES = `
  SELECT c.*, p.phone AS matched_phone FROM contact_phones p JOIN contacts c ON c.organization_id = p.organization_id AND c.id = p.contact_id
  WHERE p.organization_id = app_org_id() AND p.phone = ANY($1::text[])`;

export const CONTACT_BY_PHONE = `
  SELECT ${rowList(CONTACTS, 'c')} FROM contact_phones p JOIN contacts c ON c.organization_id = p.organization_id AND c.id = p.contact_id
  WHERE p.organization_id = app_org_id() AND p.phone = $1`;

// The oldest contact holding a (lower-cased) email address.
export const CONTACT_BY_EMAIL = `
  SELECT c.* FROM contact_emails e JOIN contacts c ON c.organization_id = e.organization_id AND c.id = e.contact_id
  WHERE e.organization_id = app_org_id() AND e.email = $1 ORDER BY c.created_at, c.id LIMIT 1`;

// $3: name pattern, $4: E.164 phone, $5: digits for a partial phone match (null when not searching
// that way). Static text: it is used twice below rather than through a CTE, which PostgreSQL would
// materialise in full for every page.
const CONTACT_MATCHES = `
  ($3::text IS NULL AND $4::text IS NULL AND $5::text IS NULL)
  OR ($3::text IS NOT NULL AND (c.first_name || ' ' || coalesce(c.last_name, '')) ILIKE $3 ESCAPE '\\')
  OR ($4::text IS NOT NULL AND c.id = (SELECT contact_id FROM contact_phones WHERE organization_id = app_org_id() AND phone = $4))
  OR ($5::text IS NOT NULL AND EXISTS (SELECT 1 FROM unnest(c.phones) AS p WHERE p LIKE '%' || $5 || '%'))`;

// One page newest first (the (organization_id, created_at, id) index serves it) plus the total.
export const LIST_CONTACTS = `
  SELECT (SELECT count(*) FROM contacts c WHERE ${CONTACT_MATCHES})::int AS total,
         coalesce((SELECT json_agg(page ORDER BY page.created_at DESC, page.id)
                   FROM (SELECT c.id, c.first_name, c.last_name, c.phones, c.emails, c.tags, c.company_id, c.created_at, c.updated_at
                         FROM contacts c WHERE ${CONTACT_MATCHES}
                         ORDER BY c.created_at DESC, c.id LIMIT $1 OFFSET $2) page), '[]'::json) AS contacts`;

// Set-based writes of a CSV import batch. $1 of each is a JSON array of records (id and fields).
const RECORD_COLUMNS = `id uuid, ${W.recordType}`;

// For the batch's E.164 phones $1 and emails $2: the contact holding each phone, and the oldest
// contact holding each email, with its age for ranking. Each key is one probe of the primary key of
// contact_phones or contact_emails (then contacts by id): the LATERAL ... LIMIT 1 keeps the plan a
// loop of index probes even when the table statistics lag behind a growing table (a hash join over
// the organization's rows would then look cheaper), so the cost follows the batch, not the table.
export const CONTACT_BATCH_MATCHES = `
  SELECT 'phone' AS kind, k.key, m.id, m.age
  FROM unnest($1::text[]) AS k(key)
  CROSS JOIN LATERAL (
    SELECT c.id, extract(epoch FROM c.created_at)::float8 AS age
    FROM contact_phones p JOIN contacts c ON c.organization_id = p.organization_id AND c.id = p.contact_id
    WHERE p.organization_id = app_org_id() AND p.phone = k.key LIMIT 1) m
  UNION ALL
  SELECT 'email', k.key, m.id, m.age
  FROM unnest($2::text[]) AS k(key)
  CROSS JOIN LATERAL (
    SELECT c.id, extract(epoch FROM c.created_at)::float8 AS age
    FROM contact_emails e JOIN contacts c ON c.organization_id = e.organization_id AND c.id = e.contact_id
    WHERE e.organization_id = app_org_id() AND e.email = k.key ORDER BY c.created_at, c.id LIMIT 1) m`;

export const CONTACTS_FOR_UPDATE = `SELECT * FROM contacts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`;

// New contacts and their phone claims in one statement; a phone already taken (a concurrent
// writer) fails the statement with a unique violation.
export const INSERT_CONTACTS = `
  WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${RECORD_COLUMNS})),
  ins AS (
    INSERT INTO contacts (id, organization_id, ${W.list})
    SELECT id, app_org_id(), ${W.list} FROM r
    RETURNING *),
  claimed AS (INSERT INTO contact_phones (organization_id, phone, contact_id) SELECT app_org_id(), p, ins.id FROM ins CROSS JOIN LATERAL unnest(ins.phones) AS p),
  mails AS (INSERT INTO contact_emails (organization_id, email, contact_id) SELECT app_org_id(), e, ins.id FROM ins CROSS JOIN LATERAL unnest(ins.emails) AS e ON CONFLICT DO NOTHING)
  SELECT * FROM ins`;

// $2: the phones each updated contact gains (phone[i] goes to contact_id[i] of $3); $4 and $5 the
// same for emails (an import only adds to the lists).
export const UPDATE_CONTACTS = `
  WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(${RECORD_COLUMNS})),
  upd AS (
    UPDATE contacts c SET ${W.assignments('r')}, updated_at = now()
    FROM r WHERE c.id = r.id RETURNING c.*),
  claimed AS (INSERT INTO contact_phones (organization_id, phone, contact_id) SELECT app_org_id(), phone, contact_id FROM unnest($2::text[], $3::uuid[]) AS x(phone, contact_id)),
  mails AS (INSERT INTO contact_emails (organization_id, email, contact_id) SELECT app_org_id(), email, contact_id FROM unnest($4::text[], $5::uuid[]) AS x(email, contact_id) ON CONFLICT DO NOTHING)
  SELECT * FROM upd`;
