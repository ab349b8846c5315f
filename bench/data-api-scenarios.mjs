// Data API scenarios (issue: /rest/v1 reads against a hand-written pg query returning the same JSON):
// contacts with two filters, an order and limit 50 over 100,000 contacts, and deals embedding their
// contact and owner profile. The bare routes do what the service does around the query (JWT,
// session check, tenant transaction) and run hand-written SQL that builds the same JSON.
import { bareTenant } from './bare-tenant.mjs';
const bearer = (state) => ({ authorization: `Bearer ${state.accessToken}` });

const CONTACT_COLUMNS = 'id,first_name,last_name,phones,emails,tags,company_id,created_at';

export const DATA_API_CONTACTS = 'rest/v1 contacts 2 filters, 50 of 100k';

export const dataApiScenarios = [
  {
    name: DATA_API_CONTACTS,
    ours: {
      path: `/rest/v1/contacts?select=${CONTACT_COLUMNS}&last_name=eq.Seed&first_name=like.Contact%201*&order=created_at.desc&limit=50`,
      headers: bearer,
    },
    bare: { path: '/rest/contacts', headers: bearer },
  },
  {
    name: 'rest/v1 deals + contacts + owners, 50',
    ours: { path: '/rest/v1/deals?select=*,contacts(*),profiles!deals_owner_id_fkey(*)&title=like.Bench*&order=created_at.desc&limit=50', headers: bearer },
    bare: { path: '/rest/deals', headers: bearer },
  },
];

// Tops the organization up to 100,000 contacts (phones apart from the import scenario's) and adds 5,000 deals, each with a contact and the
// demo OWNER as owner, for the embedding scenario.
export async function seedDataApi(databaseUrl, organizationId, ownerEmail) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const {
      rows: [{ count }],
    } = await client.query('SELECT count(*)::int AS count FROM contacts WHERE organization_id = $1', [organizationId]);
    await client.query(
      `WITH made AS (
         INSERT INTO contacts (organization_id, first_name, last_name, phones, created_at)
         SELECT $1, 'Contact ' || n, 'Seed', ARRAY['+2015' || lpad(n::text, 8, '0')], now() - make_interval(secs => n)
         FROM generate_series($2::int + 1, 100000) AS n RETURNING id, organization_id, phones[1] AS phone)
       INSERT INTO contact_phones (organization_id, phone, contact_id) SELECT organization_id, phone, id FROM made`,
      [organizationId, count],
    );
    const {
      rows: [{ id: ownerId }],
    } = await client.query('SELECT id FROM users WHERE email = $1', [ownerEmail]);
    await client.query(
      `INSERT INTO deals (organization_id, title, pipeline_id, stage_id, stage, value, probability, position, contact_id, owner_id, created_at)
       SELECT $1, 'Bench deal ' || n, s.pipeline_id, s.id, s.key, n * 10, coalesce(s.default_probability, 0), n, c.id, $2, now() - make_interval(secs => n)
       FROM generate_series(1, 5000) AS n
       JOIN LATERAL (SELECT st.* FROM pipeline_stages st JOIN pipelines p ON p.id = st.pipeline_id
                     WHERE p.organization_id = $1 AND p.is_default AND st.position = n % 6) s ON true
       JOIN LATERAL (SELECT id FROM contacts WHERE organization_id = $1 AND first_name = 'Contact ' || n) c ON true`,
      [organizationId, ownerId],
    );
    // Vacuumed as well, as seedContacts does: both sides read the same visibility map.
    await client.query('VACUUM (ANALYZE) contacts, contact_phones, deals');
  } finally {
    await client.end();
  }
}

export function registerDataApiBareRoutes(app, { pool, key, sessionCheck, jwtVerify }) {
  const inTenant = bareTenant({ pool, key, sessionCheck, jwtVerify });

  // The JSON text straight from PostgreSQL, as the service answers it.
  const send = (reply, body) => reply.header('content-type', 'application/json; charset=utf-8').send(body);

  app.get('/rest/contacts', (request, reply) =>
    inTenant(request, reply, async (client) => {
      const {
        rows: [row],
      } = await client.query(
        `SELECT coalesce(json_agg(t), '[]')::text AS body FROM (
           SELECT id, first_name, last_name, phones, emails, tags, company_id, created_at FROM contacts
           WHERE last_name = $1 AND first_name LIKE $2 ORDER BY created_at DESC LIMIT 50) t`,
        ['Seed', 'Contact 1%'],
      );
      return send(reply, row.body);
    }),
  );

  app.get('/rest/deals', (request, reply) =>
    inTenant(request, reply, async (client) => {
      const {
        rows: [row],
      } = await client.query(
        `SELECT coalesce(json_agg(t), '[]')::text AS body FROM (
           SELECT d.*, (SELECT row_to_json(c) FROM contacts c WHERE c.id = d.contact_id) AS contacts,
                  (SELECT row_to_json(p) FROM profiles p WHERE p.id = d.owner_id) AS profiles
           FROM deals d WHERE d.title LIKE $1 ORDER BY d.created_at DESC LIMIT 50) t`,
        ['Bench%'],
      );
      return send(reply, row.body);
    }),
  );
}
