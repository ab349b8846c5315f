import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

// The CRM's lookup tables (contact_emails, company_duplicate_keys) stay right when the records are
// written through the data API (/rest/v1: inserts, PATCH by id and by filter, upserts, deletes),
// and what they answer (CSV import matches, duplicate groups) follows those writes.
describe('CRM lookup keys after writes through the data API', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startComposedApp());
  });
  afterAll(() => close());

  const rest = (method: 'POST' | 'PATCH' | 'DELETE', path: string, t: TestTenant, payload?: unknown, prefer = 'return=representation') =>
    app.inject({ method, url: `/rest/v1${path}`, headers: { ...t.session, prefer }, ...(payload === undefined ? {} : { payload: payload as object }) });
  const importCsv = async (t: TestTenant, entity: 'contacts' | 'companies', csv: string) =>
    (await app.inject({ method: 'POST', url: `/functions/v1/${entity}/import`, headers: { ...t.session, 'content-type': 'text/csv' }, payload: csv })).json();
  const duplicates = async (t: TestTenant) => {
    const res = await app.inject({ method: 'POST', url: '/functions/v1/find-duplicate-companies', headers: t.session, payload: {} });
    expect(res.statusCode).toBe(200);
    return (res.json().groups as { company_ids: string[]; reasons: string[] }[]).map((g) => ({ ids: [...g.company_ids].sort(), reasons: g.reasons }));
  };

  // contact_emails of an organization, and what contacts.emails says it should hold.
  const emailRows = async (t: TestTenant) => {
    const [row] = await runtime.db.asSystem((tx) =>
      tx.query<{ actual: string[]; expected: string[] }>(
        `SELECT (SELECT coalesce(array_agg(email || ' ' || contact_id ORDER BY email, contact_id), '{}') FROM contact_emails WHERE organization_id = $1) AS actual,
                (SELECT coalesce(array_agg(DISTINCT e || ' ' || c.id), '{}') FROM contacts c CROSS JOIN LATERAL unnest(c.emails) e WHERE c.organization_id = $1) AS expected`,
        [t.ctx.organizationId],
      ),
    );
    expect(row.actual).toEqual([...row.expected].sort());
    return row.actual;
  };

  it('should keep contact_emails in step with POST, PATCH (by id and by filter), upsert and DELETE, and import by the emails written', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const created = await rest('POST', '/contacts', t, [
      { first_name: 'Ana', emails: [' Ana@Example.com '] },
      { first_name: 'Bo', emails: ['bo@example.com', 'shared@example.com'] },
    ]);
    expect(created.statusCode).toBe(201);
    const [ana, bo] = created.json() as { id: string }[];
    expect(await emailRows(t)).toEqual([`ana@example.com ${ana.id}`, `bo@example.com ${bo.id}`, `shared@example.com ${bo.id}`]);

    expect((await rest('PATCH', `/contacts?id=eq.${ana.id}`, t, { emails: ['ana2@example.com'] })).statusCode).toBe(200);
    expect(await emailRows(t)).toEqual([`ana2@example.com ${ana.id}`, `bo@example.com ${bo.id}`, `shared@example.com ${bo.id}`]);

    // One PATCH for every contact the filter matches.
    expect((await rest('PATCH', '/contacts?first_name=in.(Ana,Bo)', t, { emails: ['same@example.com'] })).json()).toHaveLength(2);
    expect(await emailRows(t)).toEqual([`same@example.com ${ana.id}`, `same@example.com ${bo.id}`].sort());

    const upserted = await rest(
      'POST',
      '/contacts?on_conflict=id',
      t,
      { id: bo.id, first_name: 'Bo', emails: ['bo3@example.com'] },
      'return=representation,resolution=merge-duplicates',
    );
    expect(upserted.statusCode).toBe(200);
    expect(await emailRows(t)).toEqual([`bo3@example.com ${bo.id}`, `same@example.com ${ana.id}`]);

    expect((await rest('DELETE', `/contacts?id=eq.${ana.id}`, t)).json()).toHaveLength(1);
    expect(await emailRows(t)).toEqual([`bo3@example.com ${bo.id}`]);

    // Another organization's contact with the same email is invisible to the import.
    const theirs = (await rest('POST', '/contacts', other, { first_name: 'Theirs', emails: ['bo3@example.com'] })).json()[0];
    // Bo is found by the email the upsert gave it; the emails Ana and Bo lost find nobody.
    const job = await importCsv(t, 'contacts', 'first_name,emails\nBo Imported,BO3@example.com\nFresh,same@example.com\nFresher,shared@example.com\n');
    expect(job).toMatchObject({ status: 'completed', created: 2, updated: 1, failed: 0 });
    const rows = await emailRows(t);
    expect(rows).toHaveLength(3);
    expect(rows).toContain(`bo3@example.com ${bo.id}`);
    expect(await emailRows(other)).toEqual([`bo3@example.com ${theirs.id}`]);
  });

  it('should group duplicate companies as written through /rest/v1 (POST, PATCH, DELETE) and after a merge, each organization alone', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    await rest('POST', '/companies', other, { name: 'Acme', website: 'acme.example' });
    const [acme, globex] = (
      await rest('POST', '/companies', t, [
        { name: 'Acme Inc', website: 'acme.example' },
        { name: 'Globex', website: '' },
      ])
    ).json() as { id: string }[];
    expect(await duplicates(t)).toEqual([]);

    expect((await rest('PATCH', `/companies?id=eq.${globex.id}`, t, { website: 'https://www.acme.example/about' })).statusCode).toBe(200);
    expect(await duplicates(t)).toEqual([{ ids: [acme.id, globex.id].sort(), reasons: ['same website domain acme.example'] }]);

    const [ltd] = (await rest('POST', '/companies', t, { name: 'ACME Ltd' })).json() as { id: string }[];
    expect(await duplicates(t)).toEqual([
      { ids: [acme.id, globex.id, ltd.id].sort(), reasons: ['same normalised name acme', 'same website domain acme.example'] },
    ]);

    expect((await rest('DELETE', `/companies?id=eq.${globex.id}`, t)).json()).toHaveLength(1);
    expect(await duplicates(t)).toEqual([{ ids: [acme.id, ltd.id].sort(), reasons: ['same normalised name acme'] }]);

    // A CSV import (matched by name) rewrites Acme Inc with another website: still one group by name.
    expect(await importCsv(t, 'companies', 'name,website\nacme inc,acme-group.example\n')).toMatchObject({ updated: 1, created: 0 });
    expect(await duplicates(t)).toEqual([{ ids: [acme.id, ltd.id].sort(), reasons: ['same normalised name acme'] }]);
    await rest('PATCH', `/companies?id=eq.${acme.id}`, t, { name: 'Initech' });
    expect(await duplicates(t)).toEqual([]);
    await rest('PATCH', `/companies?id=eq.${acme.id}`, t, { name: 'Acme' });
    expect(await duplicates(t)).toEqual([{ ids: [acme.id, ltd.id].sort(), reasons: ['same normalised name acme'] }]);
    const merged = await app.inject({
      method: 'POST',
      url: '/functions/v1/find-duplicate-companies',
      headers: t.session,
      payload: { companyIds: [acme.id, ltd.id], primaryCompanyId: acme.id },
    });
    expect(merged.statusCode).toBe(200);
    expect(await duplicates(t)).toEqual([]);
    // The other organization's Acme never joined a group of t's, nor t's companies one of its own.
    expect(await duplicates(other)).toEqual([]);
    const [{ n }] = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number }>('SELECT count(*)::int AS n FROM company_duplicate_keys WHERE organization_id = $1', [t.ctx.organizationId]),
    );
    expect(n).toBe(1);
  });
});
