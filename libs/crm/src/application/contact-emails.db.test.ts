import { Readable } from 'node:stream';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { CONTACT_BATCH_MATCHES } from '../infrastructure/contact.sql';
import { CreateContactEmails1763800002009 } from '../infrastructure/migrations/0009-create-contact-emails';
import { startImportRuntime } from '../testing/import-runtime';
import type { CompanyService } from './company.service';
import type { ContactService } from './contact.service';
import type { CsvImportService } from './csv-import.service';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plan?: PlanNode;
  Plans?: PlanNode[];
}
const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];

// contact_emails: the indexed email lookup, kept in step with contacts.emails by every write.
describe('contact_emails', () => {
  let runtime: PlatformRuntime;
  let contacts: ContactService;
  let companies: CompanyService;
  let imports: CsvImportService;

  beforeAll(async () => {
    ({ runtime, contacts, companies, imports } = await startImportRuntime());
  });
  afterAll(() => runtime.close());

  // What the tenant sees, as [email, contact_id] pairs.
  const rows = (ctx: RequestContext) =>
    runtime.db.inTenant(ctx, async (tx) =>
      (await tx.query<{ email: string; contact_id: string }>('SELECT email, contact_id FROM contact_emails ORDER BY email, contact_id')).map((r) => [
        r.email,
        r.contact_id,
      ]),
    );
  const importCsv = (ctx: RequestContext, csv: string) => imports.run(ctx, 'contacts', Readable.from([csv]));

  it('should follow creates and updates of a contact, and go with the contact when it is deleted', async () => {
    const ctx = await makeOrganization(runtime);
    const c = await contacts.create(ctx, { first_name: 'Ana', emails: [' Ana@Example.com ', 'ana@work.example'] });
    expect(await rows(ctx)).toEqual([
      ['ana@example.com', c.id],
      ['ana@work.example', c.id],
    ]);
    await contacts.update(ctx, c.id, { emails: ['ana@work.example', 'ana@new.example'] });
    expect(await rows(ctx)).toEqual([
      ['ana@new.example', c.id],
      ['ana@work.example', c.id],
    ]);
    // An update that leaves the list alone leaves the lookup alone.
    await contacts.update(ctx, c.id, { first_name: 'Anna' });
    expect(await rows(ctx)).toEqual([
      ['ana@new.example', c.id],
      ['ana@work.example', c.id],
    ]);
    await contacts.update(ctx, c.id, { emails: [] });
    expect(await rows(ctx)).toEqual([]);
    await contacts.update(ctx, c.id, { emails: ['back@example.com'] });
    await runtime.db.inTenant(ctx, (tx) => contacts.removeIn(tx, ctx, c.id));
    expect(await rows(ctx)).toEqual([]);
  });

  it('should let two contacts share an email, and an import match the oldest of them', async () => {
    const ctx = await makeOrganization(runtime);
    const first = await contacts.create(ctx, { first_name: 'First', emails: ['shared@example.com'] });
    const second = await contacts.create(ctx, { first_name: 'Second', emails: ['shared@example.com', 'second@example.com'] });
    expect(await rows(ctx)).toEqual(
      [
        ['second@example.com', second.id],
        ['shared@example.com', first.id],
        ['shared@example.com', second.id],
      ].sort(),
    );
    const job = await importCsv(ctx, 'first_name,emails\nMatched,SHARED@example.com;more@example.com\nSecondAgain,second@example.com\n');
    expect(job).toMatchObject({ status: 'completed', created: 0, updated: 2, failed: 0 });
    expect((await contacts.get(ctx, first.id)).emails).toEqual(['shared@example.com', 'more@example.com']);
    expect((await contacts.get(ctx, second.id)).first_name).toBe('SecondAgain');
    expect(await rows(ctx)).toEqual(
      [
        ['more@example.com', first.id],
        ['second@example.com', second.id],
        ['shared@example.com', first.id],
        ['shared@example.com', second.id],
      ].sort(),
    );
  });

  it('should be written by the set-based import (creates and merges) and by its per-row path', async () => {
    const ctx = await makeOrganization(runtime);
    const existing = await contacts.create(ctx, { first_name: 'Old', phones: ['+201001000001'], emails: ['old@example.com'] });
    // Row 3 repeats row 2's email, so it takes the per-row path after the batch.
    const job = await importCsv(
      ctx,
      'first_name,phones,emails\nNew,,new@example.com\nAgain,,NEW@example.com;again@example.com\nOld,+201001000001,old2@example.com\n',
    );
    expect(job).toMatchObject({ status: 'completed', created: 1, updated: 2, failed: 0 });
    const created = (await contacts.list(ctx, { page: 1, limit: 10 })).contacts.find((c) => c.first_name === 'Again')!;
    expect(await rows(ctx)).toEqual(
      [
        ['again@example.com', created.id],
        ['new@example.com', created.id],
        ['old2@example.com', existing.id],
        ['old@example.com', existing.id],
      ].sort(),
    );
  });

  it('should report by line a row whose email the database refuses (a NUL character) and write the others', async () => {
    const ctx = await makeOrganization(runtime);
    const job = await importCsv(ctx, 'first_name,emails\nOne,one@example.com\nNul,a\u0000b@example.com\nTwo,two@example.com\n');
    expect(job).toMatchObject({ status: 'completed', created: 2, failed: 1, errors: [{ line: 3, code: 'import.row_failed' }] });
    expect((await rows(ctx)).map(([email]) => email)).toEqual(['one@example.com', 'two@example.com']);
  });

  it('should keep each organization to its own rows', async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    const theirs = await contacts.create(b, { first_name: 'Theirs', emails: ['same@example.com'] });
    expect(await rows(a)).toEqual([]);
    // An import in A does not match B's contact with the same email: it creates A's own.
    expect(await importCsv(a, 'first_name,emails\nMine,same@example.com\n')).toMatchObject({ created: 1, updated: 0 });
    const [mine] = (await contacts.list(a, { page: 1, limit: 10 })).contacts;
    expect(await rows(a)).toEqual([['same@example.com', mine.id]]);
    expect(await rows(b)).toEqual([['same@example.com', theirs.id]]);
    expect((await contacts.get(b, theirs.id)).first_name).toBe('Theirs');
    // Row-level security refuses a row for another organization or pointing at its contact.
    await expect(
      runtime.db.inTenant(a, (tx) =>
        tx.query('INSERT INTO contact_emails (organization_id, email, contact_id) VALUES ($1, $2, $3)', [b.organizationId, 'x@example.com', theirs.id]),
      ),
    ).rejects.toThrow();
    await expect(
      runtime.db.inTenant(a, (tx) =>
        tx.query('INSERT INTO contact_emails (organization_id, email, contact_id) VALUES ($1, $2, $3)', [a.organizationId, 'x@example.com', theirs.id]),
      ),
    ).rejects.toThrow();
  });

  it('should keep the rows of contacts moved by a company merge', async () => {
    const ctx = await makeOrganization(runtime);
    const primary = await companies.create(ctx, { name: 'Primary' });
    const other = await companies.create(ctx, { name: 'Other' });
    const c = await contacts.create(ctx, { first_name: 'Moved', company_id: other.id, emails: ['moved@example.com'] });
    await companies.merge(ctx, [primary.id, other.id], primary.id);
    expect((await contacts.get(ctx, c.id)).company_id).toBe(primary.id);
    expect(await rows(ctx)).toEqual([['moved@example.com', c.id]]);
  });

  it('should backfill the existing contacts when the migration runs', async () => {
    const ctx = await makeOrganization(runtime);
    const c = await contacts.create(ctx, { first_name: 'Before', emails: ['before@example.com', 'also@example.com'] });
    const runner = runtime.dataSource.createQueryRunner();
    try {
      const migration = new CreateContactEmails1763800002009();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await rows(ctx)).toEqual([
      ['also@example.com', c.id],
      ['before@example.com', c.id],
    ]);
  });

  it('should match a batch by index probes of contact_phones and contact_emails, never by scanning the organization’s contacts', async () => {
    const ctx = await makeOrganization(runtime);
    // Many contacts and no fresh statistics: the situation of a long import.
    await runtime.db.asSystem((tx) =>
      tx.query(
        `WITH made AS (
           INSERT INTO contacts (organization_id, first_name, phones, emails)
           SELECT $1, 'C' || n, ARRAY['+2011' || lpad(n::text, 8, '0')], ARRAY['c' || n || '@example.com'] FROM generate_series(1, 5000) n
           RETURNING id, phones[1] AS phone, emails[1] AS email),
         p AS (INSERT INTO contact_phones (organization_id, phone, contact_id) SELECT $1, phone, id FROM made)
         INSERT INTO contact_emails (organization_id, email, contact_id) SELECT $1, email, id FROM made`,
        [ctx.organizationId],
      ),
    );
    const phones = Array.from({ length: 500 }, (_, i) => `+2011${String(4800 + i).padStart(8, '0')}`);
    const emails = Array.from({ length: 500 }, (_, i) => `c${4800 + i}@example.com`);
    const [found, plan] = await runtime.db.inTenant(
      ctx,
      async (tx) =>
        [
          await tx.query<{ kind: string; key: string }>(CONTACT_BATCH_MATCHES, [phones, emails]),
          (await tx.query<{ 'QUERY PLAN': PlanNode[] }>(`EXPLAIN (FORMAT JSON) ${CONTACT_BATCH_MATCHES}`, [phones, emails]))[0]['QUERY PLAN'][0].Plan!,
        ] as const,
    );
    expect(found.filter((m) => m.kind === 'phone')).toHaveLength(201); // 4800 to 5000
    expect(found.filter((m) => m.kind === 'email')).toHaveLength(201); // 4800 to 5000
    const nodes = flatten(plan);
    const scans = nodes.filter((n) => n['Relation Name']).map((n) => `${n['Node Type']} ${n['Relation Name']} ${n['Index Name'] ?? ''}`.trim());
    expect(scans.sort()).toEqual([
      'Index Only Scan contact_emails contact_emails_pkey',
      'Index Scan contact_phones contact_phones_pkey',
      'Index Scan contacts contacts_pkey',
      'Index Scan contacts contacts_pkey',
    ]);
    expect(nodes.some((n) => n['Node Type'] === 'Hash Join')).toBe(false);
  });
});
