// Billing scenario of `npm run bench`: signed storefront billing events per second (HMAC-SHA256 of
// the raw body checked, the organization's OWNER and plan looked up, the one-statement upsert with
// the stale rule, the change event in the outbox), against a bare Fastify + pg route doing the same
// SQL (imported from our build) after the same signature check.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const BILLING_SECRET = 'bench-billing-secret-0123456789';
export const BILLING_EVENTS = 'billing events, HMAC + upsert';
const STORES = 1000;
const PLANS = ['free', 'starter', 'growth', 'business'];
const STATUSES = ['trialing', 'active', 'past_due', 'canceled'];

// One counter for both sides: every event's period starts later than any sent before it, so both
// apply nearly every event (a few arrive after a later one of their store and are stale, as in life).
let sent = 0;
function signedEvents(state) {
  return (request) => {
    const n = sent++;
    const store = n % STORES;
    const body = JSON.stringify({
      organization_id: state.billingOrganizations[store],
      plan_id: PLANS[n % 4],
      storefront_store_id: `bench-store-${store}`,
      status: STATUSES[n % 4],
      shop_domain: `bench-${store}.example`,
      current_period_start: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
      current_period_end: new Date(Date.UTC(2026, 1, 1) + n * 1000).toISOString(),
      cancel_at_period_end: false,
    });
    const signature = `sha256=${createHmac('sha256', BILLING_SECRET).update(body).digest('hex')}`;
    return { ...request, body, headers: { ...request.headers, 'content-type': 'application/json', 'x-billing-signature': signature } };
  };
}

export const billingScenarios = [
  {
    name: BILLING_EVENTS,
    ours: { path: '/functions/v1/storefront-billing-webhook', method: 'POST', setupRequest: signedEvents },
    bare: { path: '/billing/event', method: 'POST', setupRequest: signedEvents },
  },
];

// 1,000 organizations, each with the demo OWNER as its OWNER: one store each (one subscription per organization).
export async function seedBilling(databaseUrl, ownerEmail, state) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `WITH orgs AS (INSERT INTO organizations (name) SELECT 'Billing bench ' || n FROM generate_series(1, $1) n RETURNING id),
            owners AS (INSERT INTO memberships (organization_id, user_id, role) SELECT orgs.id, u.id, 'OWNER' FROM orgs, users u WHERE u.email = $2)
       SELECT id FROM orgs`,
      [STORES, ownerEmail],
    );
    state.billingOrganizations = rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

export function registerBillingBareRoutes(app, { pool, root, secret }) {
  const require = createRequire(import.meta.url);
  const sql = require(join(root, 'dist/out/libs/billing/src/infrastructure/subscription.sql.js'));
  const { insertOutboxEvents } = require(join(root, 'dist/out/libs/platform/src/events/outbox.sql.js'));
  const tenant = `SELECT set_config('role', 'app_tenant', true), set_config('app.org_id', $1, true), set_config('app.user_id', '', true),
                         set_config('app.role', 'SYSTEM', true)`;
  const SIGNATURE = /^(?:sha256=)?([0-9a-fA-F]{64})$/;

  // The raw body for this route only, within 64 KiB, as ours.
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/billing/event', async (request, reply) => {
      const given = SIGNATURE.exec(String(request.headers['x-billing-signature'] ?? ''));
      const expected = createHmac('sha256', secret).update(request.body).digest();
      if (!given || !timingSafeEqual(expected, Buffer.from(given[1], 'hex'))) return reply.status(401).send({ error: 'invalid signature' });
      const event = JSON.parse(request.body.toString('utf8'));
      const {
        rows: [facts],
      } = await pool.query({ name: 'billing-facts', text: sql.EVENT_FACTS, values: [event.organization_id, event.plan_id] });
      if (!facts.organization_exists || !facts.plan_metadata || !facts.owner_id) return reply.status(422).send({ error: 'refused' });
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query({ name: 'billing-tenant', text: tenant, values: [event.organization_id] });
        const values = [
          event.organization_id,
          event.plan_id,
          event.storefront_store_id,
          event.shop_domain ?? null,
          event.status,
          event.current_period_start ?? null,
          event.current_period_end ?? null,
          null,
          null,
          event.cancel_at_period_end ?? null,
          JSON.stringify(facts.plan_metadata),
          facts.owner_id,
          false,
          false,
        ];
        const {
          rows: [row],
        } = await client.query({ name: 'billing-upsert', text: sql.UPSERT_SUBSCRIPTION, values });
        let status = row?.status;
        if (row) {
          const { created, ...subscription } = row;
          const changed = {
            id: randomUUID(),
            organizationId: event.organization_id,
            source: 'billing',
            type: 'subscription.changed',
            aggregateId: row.id,
            payload: { subscription, created, actor_id: null },
            schemaVersion: 1,
            occurredAt: new Date(),
          };
          await insertOutboxEvents({ query: (text, params) => client.query({ name: 'billing-outbox', text, values: params }) }, [changed]);
        } else {
          status = (await client.query({ name: 'billing-stored', text: sql.STORED_STATUS, values: [event.storefront_store_id] })).rows[0]?.status;
        }
        await client.query('COMMIT');
        const answer = { ok: true, applied: Boolean(row), organization_id: event.organization_id, storefront_store_id: event.storefront_store_id, status };
        return row ? answer : { ...answer, reason: 'stale_event' };
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    });
  });
}
