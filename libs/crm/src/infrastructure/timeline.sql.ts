// SQL of the activity timeline (inside Database.inTenant: row-level security applies).

// A link to a contact, deal or company that no longer exists (deleted before the event arrived) is
// dropped; with none left there is nothing to show and no row is written. One row per event.
export const INSERT_TIMELINE_ENTRY = `
  INSERT INTO timeline_entries (organization_id, event_id, type, source, occurred_at, actor_id, contact_id, deal_id, company_id, summary, data)
  SELECT app_org_id(), $1, $2, $3, $4, $5, c.id, d.id, co.id, $8, $9
  FROM (SELECT 1) one
  LEFT JOIN contacts c ON c.id = $6::uuid
  LEFT JOIN deals d ON d.id = $7::uuid
  LEFT JOIN companies co ON co.id = $10::uuid
  WHERE c.id IS NOT NULL OR d.id IS NOT NULL OR co.id IS NOT NULL
  ON CONFLICT (organization_id, event_id) DO NOTHING`;

const page = (column: 'contact_id' | 'deal_id' | 'company_id') => `
  SELECT id, type, source, occurred_at, actor_id, contact_id, deal_id, company_id, summary, data FROM timeline_entries
  WHERE ${column} = $1 AND ($2::timestamptz IS NULL OR (occurred_at, id) < ($2::timestamptz, $3::uuid))
  ORDER BY occurred_at DESC, id DESC
  LIMIT $4`;

export const CONTACT_TIMELINE = page('contact_id');
export const DEAL_TIMELINE = page('deal_id');
export const COMPANY_TIMELINE = page('company_id');

export const CONTACT_EXISTS = `SELECT 1 FROM contacts WHERE id = $1`;
export const DEAL_EXISTS = `SELECT 1 FROM deals WHERE id = $1`;
export const COMPANY_EXISTS = `SELECT 1 FROM companies WHERE id = $1`;

// INSERT_TIMELINE_ENTRY for many entries at once (the timeline consumer's batches).
export const INSERT_TIMELINE_ENTRIES = `
  INSERT INTO timeline_entries (organization_id, event_id, type, source, occurred_at, actor_id, contact_id, deal_id, company_id, summary, data)
  SELECT app_org_id(), k.event_id, k.type, k.source, k.occurred_at, k.actor_id, c.id, d.id, co.id, k.summary, k.data
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::uuid[], $6::uuid[], $7::uuid[], $8::text[], $9::jsonb[], $10::uuid[])
       WITH ORDINALITY AS k(event_id, type, source, occurred_at, actor_id, contact_id, deal_id, summary, data, company_id, n)
  LEFT JOIN contacts c ON c.id = k.contact_id
  LEFT JOIN deals d ON d.id = k.deal_id
  LEFT JOIN companies co ON co.id = k.company_id
  WHERE c.id IS NOT NULL OR d.id IS NOT NULL OR co.id IS NOT NULL
  ORDER BY k.n
  ON CONFLICT (organization_id, event_id) DO NOTHING`;

// A deal's last_activity_at is kept to the minute: activity at most a minute after the stored time
// does not rewrite the row. What acts on it counts in days (auto-reassignment), and a contact who
// writes a message a second would otherwise rewrite each of their deals, and every index of deals
// (last_activity_at is indexed), once a second.
const ACTIVITY_STEP = `interval '1 minute'`;

// TOUCH_DEALS for many (deal, contact, time) targets: each deal takes the latest time aimed at it.
export const TOUCH_DEALS_MANY = `
  UPDATE deals SET last_activity_at = t.at
  FROM (SELECT d.id, max(k.at) AS at
        FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) AS k(deal_id, contact_id, at)
        JOIN deals d ON d.id = k.deal_id OR (k.contact_id IS NOT NULL AND d.contact_id = k.contact_id)
        GROUP BY d.id) t
  WHERE deals.id = t.id AND deals.last_activity_at < t.at - ${ACTIVITY_STEP}`;

// $1 a deal, or $2 a contact whose deals all count; $3 when the activity happened.
export const TOUCH_DEALS = `
  UPDATE deals SET last_activity_at = $3::timestamptz
  WHERE last_activity_at < $3::timestamptz - ${ACTIVITY_STEP} AND (id = $1::uuid OR ($2::uuid IS NOT NULL AND contact_id = $2::uuid))`;
