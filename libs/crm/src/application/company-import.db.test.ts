import { Readable } from 'node:stream';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { startImportRuntime } from '../testing/import-runtime';
import type { CompanyService, CompanyView } from './company.service';
import { type CsvImportService, IMPORT_BATCH_ROWS } from './csv-import.service';

// The company CSV import, written in set-based batches: the same answers as the per-row rule.
describe('CSV import of companies', () => {
  let runtime: PlatformRuntime;
  let companies: CompanyService;
  let imports: CsvImportService;

  beforeAll(async () => {
    ({ runtime, companies, imports } = await startImportRuntime());
  });
  afterAll(() => runtime.close());

  const org = async (): Promise<RequestContext> => {
    const ctx = await makeOrganization(runtime);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE organizations SET settings = '{"default_country": "EG"}' WHERE id = $1`, [ctx.organizationId]));
    return ctx;
  };
  const importCsv = (ctx: RequestContext, csv: string) => imports.run(ctx, 'companies', Readable.from([csv]));
  const all = (ctx: RequestContext) =>
    runtime.db.inTenant(ctx, (tx) =>
      tx.query<CompanyView>('SELECT name, website, phones, emails, tags, annual_revenue::float8 AS annual_revenue, notes FROM companies ORDER BY name'),
    );

  // With the NUL row the set-based statement fails (PostgreSQL text cannot hold NUL) and the batch
  // replays row by row: the answer is the same, plus that row.
  it.each([false, true])('should report bad rows by the line they start on and write the others (a row the database refuses: %s)', async (withNul) => {
    const ctx = await org();
    const full = await companies.create(ctx, { name: 'Full', phones: Array.from({ length: 50 }, (_, i) => `+2010012300${String(i).padStart(2, '0')}`) });
    const csv = [
      'name,phones,emails,annual_revenue,notes',
      'Good One,,one@good.example,,',
      'Bad Phone,12345,,,',
      '',
      ',,,,"no name,',
      'on two lines"',
      'Bad Revenue,,,lots,',
      'Bad Email,,not-an-email,,',
      `${'x'.repeat(201)},,,,`,
      // Matches Full by phone; one more phone would make 51.
      'Full,+201001239999;+201001230000,,,',
      'Good Two,0100 123 4567,,12.5,"multi',
      'line"',
      withNul ? 'Bad\u0000Null,,,,' : 'Good Null,,,,',
      'Good Three,,,,',
    ].join('\n');
    const job = await importCsv(ctx, `${csv}\n`);
    const errors = [
      { line: 3, code: 'contact.invalid_phone', error: '"12345" is not a valid phone number' },
      { line: 5, code: 'company.invalid_field', error: 'name is required' },
      { line: 7, code: 'import.invalid_cell', error: 'annual_revenue must be a number, got "lots"' },
      { line: 8, code: 'company.invalid_field', error: 'emails holds an invalid address "not-an-email"' },
      { line: 9, code: 'company.invalid_field', error: 'name must be at most 200 characters' },
      { line: 10, code: 'company.invalid_field', error: 'phones must be an array of at most 50 strings' },
      ...(withNul ? [{ line: 13, code: 'import.row_failed', error: expect.stringMatching(/^the row could not be saved/) }] : []),
    ];
    expect(job).toMatchObject({ status: 'completed', processed: 10, created: withNul ? 3 : 4, updated: 0, failed: errors.length, errors });
    expect(await all(ctx)).toEqual([
      expect.objectContaining({ name: 'Full', phones: full.phones }),
      ...(withNul ? [] : [expect.objectContaining({ name: 'Good Null' })]),
      expect.objectContaining({ name: 'Good One', emails: ['one@good.example'] }),
      expect.objectContaining({ name: 'Good Three' }),
      expect.objectContaining({ name: 'Good Two', phones: ['+201001234567'], annual_revenue: 12.5, notes: 'multi\nline' }),
    ]);
  });

  it('should match by phone, then email, then name (the oldest), within a batch and across batches, creating each company once', async () => {
    const ctx = await org();
    const alpha = await companies.create(ctx, { name: 'Alpha', phones: ['+201001110001'], tags: ['old'] });
    const beta = await companies.create(ctx, { name: 'Beta', emails: ['info@beta.example'] });
    const gamma = await companies.create(ctx, { name: 'Gamma' });
    const gammaLater = await companies.create(ctx, { name: 'gamma', website: 'later.example' });
    const byEmail = await companies.create(ctx, { name: 'Delta', emails: ['x@delta.example'] });
    const byPhone = await companies.create(ctx, { name: 'Epsilon', phones: ['+201001110005'] });
    const fillers = Array.from({ length: IMPORT_BATCH_ROWS }, (_, i) => `Filler ${i},,,`);
    const csv = [
      'name,phones,emails,tags',
      'Alpha Renamed,010 0111 0001,,vip',
      'Beta Corp,,INFO@beta.example,',
      'GAMMA,,,',
      'Zeta,+201001110005,x@delta.example,',
      'New Co,,new@co.example,a',
      'new co,,,b',
      'Other,+201001110009,,',
      'Other Again,00201001110009,,',
      ...fillers,
      // The second batch: rows of the first are now companies to match.
      'NEW CO,,,c',
      'Other Again,,other@again.example,',
    ].join('\n');
    const job = await importCsv(ctx, `${csv}\n`);
    expect(job).toMatchObject({ status: 'completed', processed: 10 + fillers.length, created: 2 + fillers.length, updated: 8, failed: 0, errors: [] });
    const rows = await runtime.db.inTenant(ctx, (tx) =>
      tx.query<CompanyView>('SELECT id, name, website, phones, emails, tags FROM companies WHERE name NOT LIKE $1 ORDER BY name', ['Filler %']),
    );
    expect(rows).toEqual([
      expect.objectContaining({ id: alpha.id, name: 'Alpha Renamed', phones: ['+201001110001'], tags: ['old', 'vip'] }),
      expect.objectContaining({ id: beta.id, name: 'Beta Corp', emails: ['info@beta.example'] }),
      expect.objectContaining({ id: byEmail.id, name: 'Delta' }),
      expect.objectContaining({ id: gamma.id, name: 'GAMMA' }),
      expect.objectContaining({ name: 'NEW CO', emails: ['new@co.example'], tags: ['a', 'b', 'c'] }),
      expect.objectContaining({ name: 'Other Again', phones: ['+201001110009'], emails: ['other@again.example'] }),
      expect.objectContaining({ id: byPhone.id, name: 'Zeta', phones: ['+201001110005'], emails: ['x@delta.example'] }),
      expect.objectContaining({ id: gammaLater.id, name: 'gamma', website: 'later.example' }),
    ]);
    const [{ n }] = await runtime.db.inTenant(ctx, (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM companies'));
    expect(n).toBe(6 + 2 + fillers.length);
    // Importing the same file again creates nothing.
    expect(await importCsv(ctx, `${csv}\n`)).toMatchObject({ created: 0, updated: 10 + fillers.length, failed: 0 });
  });

  // Row 2 would match X by name, but row 1 renames X first (matched by phone): row by row, row 2
  // then matches Z, the other "Acme", before row 3 renames Z. Row 3 must not run ahead of row 2.
  it('should give the per-row answer when an earlier row renames the company a later row would match by name', async () => {
    const ctx = await org();
    const x = await companies.create(ctx, { name: 'Acme', phones: ['+201001110001'] });
    const z = await companies.create(ctx, { name: 'Acme', phones: ['+201001110002'] });
    const job = await importCsv(ctx, 'name,phones,industry\nOther,+201001110001,Row1\nAcme,,Row2\nZeta,+201001110002,Row3\n');
    expect(job).toMatchObject({ status: 'completed', created: 0, updated: 3, failed: 0 });
    const rows = await runtime.db.inTenant(ctx, (tx) => tx.query<CompanyView>('SELECT id, name, industry FROM companies ORDER BY name'));
    expect(rows).toEqual([
      { id: x.id, name: 'Other', industry: 'Row1' },
      { id: z.id, name: 'Zeta', industry: 'Row3' },
    ]);
  });

  it("should never match another organization's companies", async () => {
    const a = await org();
    const b = await org();
    const theirs = await companies.create(b, { name: 'Acme', phones: ['+201001110001'], emails: ['sales@acme.example'] });
    const job = await importCsv(a, 'name,phones,emails\nAcme,+201001110001,\nAcme Two,,sales@acme.example\nacme,,\n');
    expect(job).toMatchObject({ created: 2, updated: 1, failed: 0 });
    const mine = await runtime.db.inTenant(a, (tx) => tx.query<CompanyView>('SELECT id, name FROM companies ORDER BY name'));
    expect(mine.map((c) => c.name)).toEqual(['Acme Two', 'acme']);
    expect(mine.some((c) => c.id === theirs.id)).toBe(false);
    const [still] = await runtime.db.inTenant(b, (tx) => tx.query<CompanyView>('SELECT name, emails FROM companies'));
    expect(still).toEqual({ name: 'Acme', emails: ['sales@acme.example'] });
  });
});
