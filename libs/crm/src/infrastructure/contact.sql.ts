import type { ContactFields } from '../domain/contact';

// SQL of contacts. Every statement runs inside Database.inTenant, so row-level security applies.

export interface ContactRow extends ContactFields {
  id: string;
  organization_id: string;
  created_at: Date;
  updated_at: Date;
}

export const ORGANIZATION_COUNTRY = `SELECT settings->>'default_country' AS country FROM organizations WHERE id = app_org_id()`;

export const INSERT_CONTACT = `
  INSERT INTO contacts (organization_id, first_name, last_name, phones, emails, tags, description, company_id, assignee_id, source, opt_in_status, custom_fields)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  RETURNING *`;

// Returns the phones that were free; a missing one belongs to another contact.
export const CLAIM_PHONES = `
  INSERT INTO contact_phones (organization_id, phone, contact_id)
  SELECT app_org_id(), phone, $2 FROM unnest($1::text[]) AS phone
  ON CONFLICT (organization_id, phone) DO NOTHING
  RETURNING phone`;

export const RELEASE_PHONES = `DELETE FROM contact_phones WHERE contact_id = $1`;

export const CONTACT_FOR_UPDATE = `SELECT * FROM contacts WHERE id = $1 FOR UPDATE`;

export const UPDATE_CONTACT = `
  UPDATE contacts SET first_name = $2, last_name = $3, phones = $4, emails = $5, tags = $6, description = $7, company_id = $8,
         assignee_id = $9, source = $10, opt_in_status = $11, custom_fields = $12, updated_at = now()
  WHERE id = $1 RETURNING *`;

export const CONTACT_WITH_COMPANY = `
  SELECT c.*, CASE WHEN co.id IS NULL THEN NULL ELSE json_build_object('id', co.id, 'name', co.name) END AS company
  FROM contacts c LEFT JOIN companies co ON co.organization_id = c.organization_id AND co.id = c.company_id
  WHERE c.id = $1`;

export const CONTACT_BY_PHONE = `
  SELECT c.* FROM contact_phones p JOIN contacts c ON c.organization_id = p.organization_id AND c.id = p.contact_id
  WHERE p.organization_id = app_org_id() AND p.phone = $1`;

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
