import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CompanyService, ContactService, DealService } from '@engage/crm';
import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { createApiApp } from '../src/create-api-app';

// Every verb on every table the composition exposes, with organization A's credentials (session on
// /rest/v1, API key on the record proxy), aimed at organization B's rows: A never reads them and
// they never change.
describe('data API isolation: every verb on every exposed table', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let a: TestTenant;
  let b: TestTenant;
  let registry: Registry;

  // Tables this suite knows how to fill for B, and a body a create accepts.
  const SEEDED = [
    'contacts',
    'companies',
    'deals',
    'pipelines',
    'pipeline_stages',
    'deal_stage_history',
    'deal_owner_history',
    'profiles',
    'subscriptions',
    'dashboard_widgets',
  ];
  // A member's own rows: /rest/v1 lists them as {widgets: [...]} (the analytics context's route,
  // which takes no id filter), and an API key, having no member, sees none.
  const PER_USER = 'dashboard_widgets';
  // Tables of no organization: the same rows for every caller, written by nobody through the API.
  const GLOBAL = ['subscription_plans'];
  const BODY: Record<string, Record<string, unknown>> = { contacts: { first_name: 'X' }, companies: { name: 'X' }, deals: { title: 'X' } };

  async function seed(tenant: TestTenant): Promise<void> {
    const company = await app.get(CompanyService).create(tenant.ctx, { name: 'Acme' });
    const contact = await app.get(ContactService).create(tenant.ctx, { first_name: 'Ali', company_id: company.id });
    await app.get(DealService).create(tenant.ctx, { title: 'Deal', contact_id: contact.id, company_id: company.id, owner_id: tenant.ctx.userId });
    const subscription = `INSERT INTO subscriptions (organization_id, plan_id, storefront_store_id, status) VALUES ($1, 'starter', $2, 'active')`;
    await runtime.db.asSystem((tx) => tx.query(subscription, [tenant.ctx.organizationId, `store-${tenant.ctx.organizationId}`]));
    // The owner's first list creates their default widgets.
    await app.inject({ method: 'GET', url: '/rest/v1/dashboard_widgets', headers: tenant.session });
  }

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: CONTEXT_MIGRATIONS });
    app = await createApiApp(runtime);
    registry = app.get<Registry>(DATA_API_REGISTRY);
    a = await createTestTenant(app, 'A');
    b = await createTestTenant(app, 'B');
    await seed(a);
    await seed(b);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  // B's rows as the system sees them: their ids and a fingerprint of their whole content.
  const snapshot = async (table: string, organizationId: string) => {
    const [row] = await runtime.db.asSystem((tx) =>
      tx.query<{ ids: string[] | null; digest: string | null }>(
        `SELECT array_agg(t.id::text ORDER BY t.id::text) AS ids, md5(string_agg(t::text, ',' ORDER BY t::text)) AS digest FROM "${table}" t WHERE t.organization_id = $1`,
        [organizationId],
      ),
    );
    return { ids: row.ids ?? [], digest: row.digest };
  };

  it('should expose only tables that carry organization_id, besides the global ones', () => {
    for (const table of registry.tables.values()) {
      if (!GLOBAL.includes(table.name)) expect(Object.keys(table.columns)).toContain('organization_id');
    }
  });

  it.each([
    ['/rest/v1', () => a.session],
    ['/functions/v1/rest-api-proxy', () => a.key],
  ])('should refuse every write to a global table through %s', async (base, credentials) => {
    for (const name of GLOBAL) {
      expect(registry.tables.get(name)?.writable).not.toBe(true);
      const digest = `SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS digest FROM "${name}" t`;
      const before = await runtime.db.asSystem((tx) => tx.query(digest));
      for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
        const headers = { ...credentials(), 'content-type': 'application/json' };
        const response = await app.inject({ method, url: `${base}/${name}`, headers, payload: { name: 'X' } });
        expect([name, method, response.statusCode]).toEqual([name, method, 405]);
      }
      expect(await runtime.db.asSystem((tx) => tx.query(digest))).toEqual(before);
    }
  });

  it.each([
    ['/rest/v1', () => a.session],
    ['/functions/v1/rest-api-proxy', () => a.key],
  ])('should keep B out of reach through %s', async (base, credentials) => {
    const headers = credentials();
    for (const table of registry.tables.values()) {
      const name = table.name;
      if (GLOBAL.includes(name)) continue;
      const before = await snapshot(name, b.ctx.organizationId);
      if (SEEDED.includes(name)) expect(before.ids.length).toBeGreaterThan(0);
      const own = name === PER_USER && base !== '/rest/v1' ? { ids: [], digest: null } : await snapshot(name, a.ctx.organizationId);
      const idList = `id=in.(${before.ids.join(',')})`;
      const send = (method: 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE', query: string, extra: Record<string, string> = {}, payload?: object) =>
        app.inject({ method, url: `${base}/${name}?${query}`, headers: { ...headers, ...extra }, ...(payload ? { payload } : {}) });
      const context = `${base} ${name}`;

      const all = await send('GET', 'select=*');
      expect([context, all.statusCode]).toEqual([context, 200]);
      const listed = all.json();
      const seen = (name === PER_USER && base === '/rest/v1' ? listed.widgets : listed) as { id: string; organization_id: string }[];
      expect([context, seen.every((row) => row.organization_id === a.ctx.organizationId)]).toEqual([context, true]);
      expect([context, seen.map((row) => String(row.id)).sort()]).toEqual([context, own.ids]);
      if (before.ids.length) {
        if (name !== PER_USER || base !== '/rest/v1') {
          expect([context, (await send('GET', idList)).json()]).toEqual([context, []]);
          const head = await send('HEAD', idList, { prefer: 'count=exact' });
          expect([context, head.headers['content-range']]).toEqual([context, '*/0']);
        }
        for (const response of [
          await send('PATCH', idList, { prefer: 'return=representation' }, { organization_id: a.ctx.organizationId, ...(BODY[name] ?? {}) }),
          await send('DELETE', idList, { prefer: 'return=representation' }),
          await send('POST', 'select=*', { prefer: 'resolution=merge-duplicates,return=representation' }, { id: before.ids[0], ...(BODY[name] ?? {}) }),
        ]) {
          expect([context, response.statusCode < 500]).toEqual([context, true]);
          if (response.statusCode < 300 && response.body) {
            for (const row of [response.json()].flat() as { id: string; organization_id: string }[])
              expect([context, row.organization_id, before.ids.includes(String(row.id))]).toEqual([context, a.ctx.organizationId, false]);
          }
        }
      }
      const created = await send('POST', 'select=*', { prefer: 'return=representation' }, { ...(BODY[name] ?? {}), organization_id: b.ctx.organizationId });
      expect([context, created.statusCode < 500]).toEqual([context, true]);
      if (created.statusCode === 201) expect([context, created.json()[0].organization_id]).toEqual([context, a.ctx.organizationId]);
      expect([context, await snapshot(name, b.ctx.organizationId)]).toEqual([context, before]);
    }
  });

  it('should loop over the tables it seeds (so the loop is not vacuous)', () => {
    for (const name of SEEDED) expect(registry.tables.has(name)).toBe(true);
  });
});
