import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import { Database } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { CompanyService } from '../application/company.service';
import { ContactService } from '../application/contact.service';
import { DealService } from '../application/deal.service';
import { CrmModule } from '../crm.module';
import { crmMigrations } from '../index';

describe('companies: create, list, search, duplicates and merge', () => {
  let app: NestFastifyApplication;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startTestApp([CrmModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations] }));
  });
  afterAll(() => close());

  const newOrg = async () => {
    const tenant = await createTestTenant(app);
    return { ctx: tenant.ctx, headers: tenant.key };
  };
  const companies = () => app.get(CompanyService);
  const post = (url: string, headers: Record<string, string>, payload?: unknown) =>
    app.inject({ method: 'POST', url: `/functions/v1/${url}`, headers, payload: payload as object });

  it('should create a company with the §4.6 fields and the attributes of §2, and list 50 per page', async () => {
    const { ctx } = await newOrg();
    const acme = await companies().create(ctx, {
      name: 'Acme',
      country: 'Egypt',
      website: 'https://acme.com',
      industry: 'Retail',
      phones: ['+201001234567'],
      annual_revenue: 1250000.5,
      tags: ['b2b'],
    });
    expect(acme).toMatchObject({
      organization_id: ctx.organizationId,
      name: 'Acme',
      country: 'Egypt',
      phones: ['+201001234567'],
      annual_revenue: 1250000.5,
      tags: ['b2b'],
      notes: '',
    });
    for (let i = 0; i < 55; i++) await companies().create(ctx, { name: `Bulk ${String(i).padStart(2, '0')}` });
    const first = await companies().list(ctx, 1);
    expect(first).toMatchObject({ total: 56, limit: 50, total_pages: 2 });
    expect(first.companies[0].name).toBe('Acme');
    expect((await companies().list(ctx, 2)).companies).toHaveLength(6);
    await expect(companies().create(ctx, { name: '' })).rejects.toMatchObject({ code: 'company.invalid_field' });
    await expect(companies().create(ctx, { name: 'X', employees: 5 })).rejects.toMatchObject({ code: 'company.unknown_field' });
    await expect(companies().create(ctx, { name: 'X', annual_revenue: -1 })).rejects.toMatchObject({ code: 'company.invalid_field' });
  });

  it('should rank search results by relevance and filter by country', async () => {
    const { ctx, headers } = await newOrg();
    await companies().create(ctx, { name: 'Nile Foods', country: 'Egypt', industry: 'Food' });
    await companies().create(ctx, { name: 'Nile', country: 'Egypt' });
    await companies().create(ctx, { name: 'Delta Trading', country: 'Egypt', website: 'https://nile-delta.com' });
    await companies().create(ctx, { name: 'Nile Shipping', country: 'Sudan' });
    const res = await post('search-companies', headers, { searchTerm: 'nile', country: 'egypt' });
    expect(res.statusCode).toBe(200);
    expect(res.json().companies.map((c: { name: string; score: number }) => [c.name, c.score])).toEqual([
      ['Nile', 100],
      ['Nile Foods', 60],
      ['Delta Trading', 20],
    ]);
    expect((await post('search-companies', headers, { searchTerm: 'food' })).json().companies.map((c: { name: string }) => c.name)).toEqual(['Nile Foods']);
    expect((await post('search-companies', headers, { searchTerm: '%' })).json().companies).toEqual([]);
    expect((await post('search-companies', headers, {})).statusCode).toBe(400);
    expect((await post('search-companies', headers, { searchTerm: 'x'.repeat(201) })).statusCode).toBe(400);
  });

  it('should find likely duplicates, then merge them losing nothing and keeping the contacts', async () => {
    const { ctx, headers } = await newOrg();
    const primary = await companies().create(ctx, {
      name: 'Acme Inc',
      website: 'https://acme.com',
      emails: ['info@acme.com'],
      tags: ['client'],
      notes: 'Met at fair',
    });
    const twin = await companies().create(ctx, {
      name: 'ACME Ltd.',
      industry: 'Retail',
      phones: ['+201001234567'],
      tags: ['vip'],
      notes: 'Pays late',
      annual_revenue: 900,
    });
    const third = await companies().create(ctx, { name: 'Acme', address_city: 'Cairo', emails: ['sales@acme.com'] });
    await companies().create(ctx, { name: 'Unrelated' });
    const contact = await app.get(ContactService).create(ctx, { first_name: 'Kept', company_id: twin.id });
    const deal = await app.get(DealService).create(ctx, { title: 'Kept deal', company_id: third.id });

    const found = await post('find-duplicate-companies', headers);
    expect(found.statusCode).toBe(200);
    expect(found.json().groups).toEqual([
      {
        company_ids: [primary.id, twin.id, third.id].sort(),
        companies: expect.any(Array),
        score: 0.88,
        reasons: ['same email domain acme.com', 'same normalised name acme'],
      },
    ]);

    const merged = await post('find-duplicate-companies', headers, { companyIds: [primary.id, twin.id, third.id], primaryCompanyId: primary.id });
    expect(merged.statusCode).toBe(200);
    const body = merged.json();
    expect(body.company).toMatchObject({
      id: primary.id,
      name: 'Acme Inc',
      website: 'https://acme.com',
      industry: 'Retail',
      address_city: 'Cairo',
      annual_revenue: 900,
      phones: ['+201001234567'],
      emails: ['info@acme.com', 'sales@acme.com'],
      tags: ['client', 'vip'],
    });
    expect(body.company.notes).toBe('Met at fair\n\n(from ACME Ltd.) Pays late');
    expect(body.moved_contact_ids).toEqual([contact.id]);
    expect(body.moved_deal_ids).toEqual([deal.id]);
    expect(
      (await app.get(Database).inTenant(ctx, (tx) => tx.query<{ company_id: string }>('SELECT company_id FROM deals WHERE id = $1', [deal.id])))[0].company_id,
    ).toBe(primary.id);
    expect((await app.get(ContactService).get(ctx, contact.id)).company).toEqual({ id: primary.id, name: 'Acme Inc' });
    expect((await companies().list(ctx, 1)).companies.map((c) => c.name).sort()).toEqual(['Acme Inc', 'Unrelated']);
  });

  it("should refuse merges naming another organization's or unknown companies, and bad input", async () => {
    const a = await newOrg();
    const b = await newOrg();
    const mine = await companies().create(a.ctx, { name: 'Mine' });
    const theirs = await companies().create(b.ctx, { name: 'Theirs' });
    const cross = await post('find-duplicate-companies', a.headers, { companyIds: [mine.id, theirs.id], primaryCompanyId: mine.id });
    expect(cross.statusCode).toBe(404);
    expect((await companies().list(b.ctx, 1)).total).toBe(1);
    expect((await post('find-duplicate-companies', a.headers, { companyIds: ['nope'], primaryCompanyId: mine.id })).statusCode).toBe(400);
    expect((await post('find-duplicate-companies', a.headers, { companyIds: [mine.id], primaryCompanyId: mine.id })).statusCode).toBe(400);
    expect((await post('find-duplicate-companies', a.headers, { companyIds: [mine.id] })).statusCode).toBe(400);
    expect((await post('find-duplicate-companies', {}, {})).statusCode).toBe(401);
    expect((await post('search-companies', b.headers, { searchTerm: 'Mine' })).json().companies).toEqual([]);
  });
});
