import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { type CompanyKeys, findDuplicateGroups } from '../domain/company-duplicates';
import { crmMigrations } from '../index';
import { CompanyService } from './company.service';

// find-duplicate-companies with keys kept in company_duplicate_keys and grouped by PostgreSQL:
// always the answer of the in-memory rule over every company, whatever wrote the companies.
describe('find-duplicate-companies', () => {
  let runtime: PlatformRuntime;
  let companies: CompanyService;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
    companies = new CompanyService(runtime.db);
  });
  afterAll(() => runtime.close());

  // The reference: the pure rule over all of the organization's companies.
  const expected = async (ctx: RequestContext) => {
    const rows = await runtime.db.inTenant(ctx, (tx) => tx.query<CompanyKeys>('SELECT id, name, website, phones, emails FROM companies'));
    const names = new Map(rows.map((row) => [row.id, row.name]));
    return { groups: findDuplicateGroups(rows).map((group) => ({ ...group, companies: group.company_ids.map((id) => ({ id, name: names.get(id) })) })) };
  };
  const keyRows = (ctx: RequestContext) =>
    runtime.db.inTenant(ctx, async (tx) => (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM company_duplicate_keys'))[0].n);

  it('should answer as the in-memory rule after plain SQL inserts, service writes, SQL updates, merges and deletes', async () => {
    const ctx = await makeOrganization(runtime);
    // Written directly (as a seed or another tool would): names, sites, phones and mail domains that collide now and then.
    await runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO companies (organization_id, name, website, phones, emails)
         SELECT $1,
                CASE WHEN n % 7 = 0 THEN 'Firm ' || (n - 1) || ' GmbH' WHEN n % 11 = 0 THEN 'Café Number ' || n ELSE 'Firm ' || n END,
                CASE WHEN n % 9 = 0 THEN 'https://www.firm' || (n - 3) || '.example/x' WHEN n % 4 = 0 THEN '' ELSE 'firm' || n || '.example' END,
                CASE WHEN n % 13 = 0 THEN ARRAY['+2012' || lpad((n - 5)::text, 8, '0')] ELSE ARRAY['+2012' || lpad(n::text, 8, '0')] END,
                CASE WHEN n % 5 = 0 THEN ARRAY['x' || n || '@gmail.com', 'y@firm' || (n - 2) || '.example'] ELSE ARRAY['info@firm' || n || '.example'] END
         FROM generate_series(1, 300) AS n`,
        [ctx.organizationId],
      ),
    );
    const first = await companies.findDuplicates(ctx);
    expect(first.groups.length).toBeGreaterThan(20);
    expect(first).toEqual(await expected(ctx));
    expect(await keyRows(ctx)).toBe(300);
    // A second request reads the kept keys and answers the same.
    expect(await companies.findDuplicates(ctx)).toEqual(first);

    const rows = await runtime.db.inTenant(ctx, (tx) => tx.query<{ id: string; name: string }>('SELECT id, name FROM companies ORDER BY name'));
    // Through the service (a PATCH), through plain SQL, a merge and a delete.
    await runtime.db.inTenant(ctx, (tx) => companies.updateIn(tx, ctx, rows[0].id, { name: rows[1].name, website: 'firm200.example' }));
    await runtime.db.asSystem((tx) => tx.query(`UPDATE companies SET phones = ARRAY['+201200000010'] WHERE id = $1`, [rows[2].id]));
    await companies.merge(ctx, [rows[3].id, rows[4].id], rows[3].id);
    await runtime.db.inTenant(ctx, (tx) => companies.removeIn(tx, ctx, rows[5].id));
    await companies.create(ctx, { name: `${rows[6].name} Ltd`, emails: ['sales@firm17.example'] });
    const after = await companies.findDuplicates(ctx);
    expect(after).not.toEqual(first);
    expect(after).toEqual(await expected(ctx));
    expect(await keyRows(ctx)).toBe(300 - 1 - 1 + 1);
  });

  it("should never group or show another organization's companies", async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    const mine = await companies.create(a, { name: 'Acme Inc', phones: ['+201001234567'] });
    await companies.create(b, { name: 'Acme', phones: ['+201001234567'], website: 'acme.example' });
    await companies.create(b, { name: 'ACME Ltd', website: 'https://acme.example' });
    expect(await companies.findDuplicates(a)).toEqual({ groups: [] });
    const theirs = await companies.findDuplicates(b);
    expect(theirs.groups).toHaveLength(1);
    expect(theirs.groups[0].company_ids).not.toContain(mine.id);
    expect(await keyRows(a)).toBe(1);
    expect(await keyRows(b)).toBe(2);
    // Row-level security refuses keys for another organization's company.
    await expect(
      runtime.db.inTenant(a, (tx) =>
        tx.query(`INSERT INTO company_duplicate_keys (organization_id, company_id, version, keys) VALUES ($1, $2, 1, '{}')`, [b.organizationId, mine.id]),
      ),
    ).rejects.toThrow();
  });
});
