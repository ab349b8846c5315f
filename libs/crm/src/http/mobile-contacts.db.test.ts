import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { ContactService } from '../application/contact.service';
import { CrmModule } from '../crm.module';
import { crmMigrations } from '../index';

describe('mobile API: GET /contacts and /contacts/:id', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startTestApp([CrmModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations] }));
  });
  afterAll(() => close());

  async function agentOfNewOrg() {
    const tenant = await createTestTenant(app, 'Shop');
    await runtime.db.asSystem((tx) => tx.query(`UPDATE organizations SET settings = '{"default_country": "EG"}' WHERE id = $1`, [tenant.ctx.organizationId]));
    return { ctx: tenant.ctx, headers: tenant.session, key: tenant.key };
  }
  const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url: `/functions/v1/mobile-api${url}`, headers });

  it('should page contacts newest first with totals, default limit 50', async () => {
    const { ctx, headers } = await agentOfNewOrg();
    const service = app.get(ContactService);
    for (let i = 0; i < 55; i++) await service.create(ctx, { first_name: `Contact ${String(i).padStart(2, '0')}` });
    const first = await get('/contacts', headers);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ total: 55, page: 1, limit: 50, total_pages: 2 });
    expect(body.contacts).toHaveLength(50);
    expect(body.contacts[0].first_name).toBe('Contact 54');
    expect(Object.keys(body.contacts[0]).sort()).toEqual([
      'company_id',
      'created_at',
      'emails',
      'first_name',
      'id',
      'last_name',
      'phones',
      'tags',
      'updated_at',
    ]);
    const second = (await get('/contacts?page=2&limit=50', headers)).json();
    expect(second.contacts.map((c: { first_name: string }) => c.first_name)).toEqual(['Contact 04', 'Contact 03', 'Contact 02', 'Contact 01', 'Contact 00']);
    expect((await get('/contacts?page=3', headers)).json().contacts).toEqual([]);
  });

  it('should search by name, and by phone in whatever form it was typed', async () => {
    const { ctx, headers } = await agentOfNewOrg();
    const service = app.get(ContactService);
    const layla = await service.create(ctx, { first_name: 'Layla', last_name: 'Nasser', phones: ['+201001234567'] });
    await service.create(ctx, { first_name: 'Omar', phones: ['+201223456789'] });
    const ids = async (search: string) =>
      (await get(`/contacts?search=${encodeURIComponent(search)}`, headers)).json().contacts.map((c: { id: string }) => c.id);
    expect(await ids('layla nas')).toEqual([layla.id]);
    expect(await ids('LAYLA')).toEqual([layla.id]);
    for (const form of ['01001234567', '+20 100 123 4567', '0020 100 123 4567', '201001234567@s.whatsapp.net', '1234567'])
      expect(await ids(form)).toEqual([layla.id]);
    expect(await ids('100%')).toEqual([]);
    expect(await ids('nobody')).toEqual([]);
  });

  it('should show one contact with its company, and 404 for another organization', async () => {
    const a = await agentOfNewOrg();
    const b = await agentOfNewOrg();
    const [company] = await runtime.db.inTenant(a.ctx, (tx) =>
      tx.query<{ id: string }>(`INSERT INTO companies (organization_id, name) VALUES ($1, 'Nile Co') RETURNING id`, [a.ctx.organizationId]),
    );
    const contact = await app.get(ContactService).create(a.ctx, { first_name: 'Hana', company_id: company.id, custom_fields: { tier: 'gold' } });
    const res = await get(`/contacts/${contact.id}`, a.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: contact.id,
      first_name: 'Hana',
      company_id: company.id,
      company: { id: company.id, name: 'Nile Co' },
      custom_fields: { tier: 'gold' },
    });
    const foreign = await get(`/contacts/${contact.id}`, b.headers);
    expect(foreign.statusCode).toBe(404);
    expect((await get('/contacts', b.headers)).json().total).toBe(0);
  });

  it('should answer bad input with a clear 4xx, never a 500', async () => {
    const { headers } = await agentOfNewOrg();
    for (const query of ['limit=0', 'limit=1000', 'limit=abc', 'page=-1', 'page=0', `search=${'x'.repeat(101)}`]) {
      const res = await get(`/contacts?${query}`, headers);
      expect([query, res.statusCode]).toEqual([query, 400]);
      expect(res.json().error).toEqual(expect.any(String));
    }
    expect((await get('/contacts/not-a-uuid', headers)).statusCode).toBe(400);
    expect((await get('/contacts/00000000-0000-0000-0000-000000000000', headers)).statusCode).toBe(404);
    expect((await get('/contacts', {})).statusCode).toBe(401);
    expect((await get('/contacts', { authorization: 'Bearer junk' })).statusCode).toBe(401);
  });

  it('should require a Bearer token: an API key is not accepted here (§5)', async () => {
    const { key } = await agentOfNewOrg();
    const res = await get('/contacts', key);
    expect(res.statusCode).toBe(401);
  });
});
