import { Readable } from 'node:stream';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { startImportRuntime } from '../testing/import-runtime';
import type { CompanyService } from './company.service';
import type { ContactService } from './contact.service';
import type { CsvImportService } from './csv-import.service';

// The set-based import gives the per-row rule's answers. Random files over a few shared phones,
// emails and names (so rows collide with each other and with existing records, and rename the
// companies other rows would match) are imported into two organizations holding the same
// records: in one the batch runs set-based; in the other a last row PostgreSQL refuses (a NUL
// character) makes the whole batch replay row by row. The records, the counts and the reported
// lines must be the same. Records an import creates share one created_at (the transaction's), so
// the rule breaks a tie between two of them by their random ids, which differ between the two
// organizations: the files are drawn so that no such tie can arise (each phone of a row is held by
// one existing record, a row has at most one phone and one email).
describe('CSV import: set-based batches answer as row by row', () => {
  let runtime: PlatformRuntime;
  let contacts: ContactService;
  let companies: CompanyService;
  let imports: CsvImportService;

  beforeAll(async () => {
    ({ runtime, contacts, companies, imports } = await startImportRuntime());
  });
  afterAll(() => runtime.close());

  // A small deterministic generator (mulberry32), so a failure can be replayed by its seed.
  const generator = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const HELD = ['+201001110001', '+201001110002', '+201001110003', '+201001110004'];
  const PHONES = ['+201001110001', '0100 111 0002', '00201001110003', '+20 100 111 0004', '12345'];
  const EMAILS = ['a@x.example', 'B@x.example', 'c@x.example', 'not-an-email'];
  const NAMES = ['Acme', 'acme', 'Beta', 'Gamma Co', 'Delta', ''];

  const pick = <T>(random: () => number, items: T[]) => items[Math.floor(random() * items.length)];
  const some = (random: () => number, items: string[], max: number) =>
    [...new Set(Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(random, items)))].join(';');

  const org = async (): Promise<RequestContext> => {
    const ctx = await makeOrganization(runtime);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE organizations SET settings = '{"default_country": "EG"}' WHERE id = $1`, [ctx.organizationId]));
    return ctx;
  };

  const cases = Array.from({ length: 40 }, (_, i) => i + 1);

  it.each(cases)('companies, seed %i', async (seed) => {
    const random = generator(seed);
    // Existing names repeat often, so that renaming one changes which company a name matches.
    const existing = HELD.map((phone, i) => ({
      name: pick(random, NAMES.slice(0, 3)),
      phones: [phone],
      emails: some(random, EMAILS.slice(0, 3), 1).split(';').filter(Boolean),
      industry: `Old ${i}`,
    }));
    const rows = Array.from(
      { length: 4 + Math.floor(random() * 12) },
      (_, i) => `${pick(random, NAMES)},${some(random, PHONES, 1)},${some(random, EMAILS, 1)},Row ${i},t${i % 3}`,
    );
    const [batched, replayed] = [await org(), await org()];
    for (const ctx of [batched, replayed]) for (const company of existing) await companies.create(ctx, company);
    const header = 'name,phones,emails,industry,tags';
    const a = await imports.run(batched, 'companies', Readable.from([[header, ...rows, 'Tail,,,,'].join('\n') + '\n']));
    const b = await imports.run(replayed, 'companies', Readable.from([[header, ...rows, 'Tail\u0000,,,,'].join('\n') + '\n']));
    expect(b.errors.at(-1)).toMatchObject({ line: rows.length + 2, code: 'import.row_failed' });
    expect({ created: a.created - 1, updated: a.updated, errors: a.errors }).toEqual({ created: b.created, updated: b.updated, errors: b.errors.slice(0, -1) });
    const state = (ctx: RequestContext) =>
      runtime.db.inTenant(ctx, async (tx) =>
        (await tx.query<{ row: string }>(`SELECT json_build_array(name, phones, emails, industry, tags)::text AS row FROM companies WHERE name <> 'Tail' `))
          .map((r) => r.row)
          .sort(),
      );
    expect(await state(batched)).toEqual(await state(replayed));
  });

  it.each(cases)('contacts, seed %i', async (seed) => {
    const random = generator(seed * 7919);
    const existing = HELD.map((phone, i) => ({
      first_name: `Old ${i}`,
      phones: [phone],
      emails: some(random, EMAILS.slice(0, 3), 2).split(';').filter(Boolean),
    }));
    const rows = Array.from({ length: 30 }, (_, i) => `${random() < 0.15 ? '' : `Row ${i}`},${some(random, PHONES, 1)},${some(random, EMAILS, 1)},t${i % 3}`);
    const [batched, replayed] = [await org(), await org()];
    for (const ctx of [batched, replayed]) for (const contact of existing) await contacts.create(ctx, contact);
    const header = 'first_name,phones,emails,tags';
    const a = await imports.run(batched, 'contacts', Readable.from([[header, ...rows, 'Tail,,,'].join('\n') + '\n']));
    const b = await imports.run(replayed, 'contacts', Readable.from([[header, ...rows, 'Tail\u0000,,,'].join('\n') + '\n']));
    expect(b.errors.at(-1)).toMatchObject({ line: rows.length + 2, code: 'import.row_failed' });
    expect({ created: a.created - 1, updated: a.updated, errors: a.errors }).toEqual({ created: b.created, updated: b.updated, errors: b.errors.slice(0, -1) });
    const state = (ctx: RequestContext) =>
      runtime.db.inTenant(ctx, async (tx) =>
        (await tx.query<{ row: string }>(`SELECT json_build_array(first_name, phones, emails, tags)::text AS row FROM contacts WHERE first_name <> 'Tail' `))
          .map((r) => r.row)
          .sort(),
      );
    expect(await state(batched)).toEqual(await state(replayed));
  });
});
