import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CompanyService } from '@engage/crm';
import { TokenService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { createApiApp } from '../src/create-api-app';

// supabase-js, unchanged, against the composed app on a real port and the real CRM tables.
describe('data API through supabase-js (/rest/v1)', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let baseUrl: string;
  let anonKey: string;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: CONTEXT_MIGRATIONS });
    app = await createApiApp(runtime);
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await app.getUrl();
    anonKey = await app.get(TokenService).issueAnonKey();
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  // Node 20 has no global WebSocket; supabase-js wants one for realtime (unused here).
  async function signedIn(): Promise<{ client: SupabaseClient; tenant: TestTenant }> {
    const tenant = await createTestTenant(app);
    const client = createClient(baseUrl, anonKey, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket as never } });
    const { error } = await client.auth.signInWithPassword({ email: tenant.email, password: tenant.password });
    expect(error).toBeNull();
    return { client, tenant };
  }

  it('should insert with select, read one-to-many and nested embeds, single and maybeSingle', async () => {
    const { client, tenant } = await signedIn();
    const company = await app.get(CompanyService).create(tenant.ctx, { name: 'Acme' });
    // Keys missing from some objects: null as PostgREST does (the CRM refuses tags: null), or the
    // context's default with defaultToNull: false (Prefer: missing=default).
    const refused = await client.from('contacts').insert([{ first_name: 'Ali', tags: ['vip'] }, { first_name: 'Badr' }]);
    expect(refused.error).toMatchObject({ message: 'tags must be an array of strings' });
    const inserted = await client
      .from('contacts')
      .insert(
        [
          { first_name: 'Ali', company_id: company.id, tags: ['vip'] },
          { first_name: 'Badr', company_id: company.id },
        ],
        { defaultToNull: false },
      )
      .select('id, first_name');
    expect(inserted.error).toBeNull();
    expect(inserted.status).toBe(201);
    expect(inserted.data!.map((c) => c.first_name)).toEqual(['Ali', 'Badr']);
    const deal = await client
      .from('deals')
      .insert({ title: 'Big', stage: 'lead', contact_id: inserted.data![0].id, owner_id: tenant.ctx.userId })
      .select()
      .single();
    expect(deal.error).toBeNull();
    expect(deal.data).toMatchObject({ title: 'Big', stage: 'LEAD' });

    const companies = await client
      .from('companies')
      .select('name, contacts(first_name)')
      .order('first_name', { referencedTable: 'contacts', ascending: false });
    expect(companies.data).toEqual([{ name: 'Acme', contacts: [{ first_name: 'Badr' }, { first_name: 'Ali' }] }]);
    const limited = await client
      .from('companies')
      .select('name, contacts(first_name)')
      .order('first_name', { referencedTable: 'contacts' })
      .limit(1, { referencedTable: 'contacts' });
    expect(limited.data).toEqual([{ name: 'Acme', contacts: [{ first_name: 'Ali' }] }]);
    const counted = await client.from('companies').select('name, contacts(count)');
    expect(counted.data).toEqual([{ name: 'Acme', contacts: [{ count: 2 }] }]);
    const nested = await client
      .from('deals')
      .select('title, contacts(first_name, companies(name)), owner:profiles!deals_owner_id_fkey(id)')
      .eq('title', 'Big')
      .single();
    expect(nested.data).toEqual({ title: 'Big', contacts: { first_name: 'Ali', companies: { name: 'Acme' } }, owner: { id: tenant.ctx.userId } });

    const none = await client.from('contacts').select('first_name').eq('first_name', 'Nobody').maybeSingle();
    expect(none).toMatchObject({ data: null, error: null });
    const one = await client.from('contacts').select('first_name').eq('first_name', 'Ali').maybeSingle();
    expect(one.data).toEqual({ first_name: 'Ali' });
    const notSingle = await client.from('contacts').select('first_name').single();
    expect(notSingle.error).toMatchObject({ code: 'PGRST116' });
    expect(notSingle.status).toBe(406);
  });

  it('should update, upsert on a conflict column, delete with in(), count with head, contains and textSearch', async () => {
    const { client } = await signedIn();
    const created = await client
      .from('contacts')
      .insert([
        { first_name: 'Ali', tags: ['vip', 'lead'] },
        { first_name: 'Badr', tags: ['lead'] },
        { first_name: 'Chadi', tags: [] },
      ])
      .select('id, first_name');
    const [ali, badr, chadi] = created.data!;

    const updated = await client.from('contacts').update({ last_name: 'Hassan' }).eq('id', ali.id).select('first_name, last_name');
    expect(updated).toMatchObject({ status: 200, data: [{ first_name: 'Ali', last_name: 'Hassan' }] });

    const upserted = await client
      .from('contacts')
      .upsert({ id: badr.id, first_name: 'Badr', last_name: 'Upserted' }, { onConflict: 'id' })
      .select('id, last_name');
    expect(upserted.error).toBeNull();
    expect(upserted.data).toEqual([{ id: badr.id, last_name: 'Upserted' }]);

    const head = await client.from('contacts').select('*', { count: 'exact', head: true });
    expect(head).toMatchObject({ count: 3, data: null, error: null });

    const vip = await client.from('contacts').select('first_name').contains('tags', ['vip']);
    expect(vip.data).toEqual([{ first_name: 'Ali' }]);
    const found = await client.from('contacts').select('first_name').textSearch('last_name', 'upserted', { type: 'plain', config: 'english' });
    expect(found.data).toEqual([{ first_name: 'Badr' }]);

    const deleted = await client.from('contacts').delete().in('id', [ali.id, chadi.id]).select('first_name');
    expect(deleted.error).toBeNull();
    expect(deleted.data!.map((c) => c.first_name).sort()).toEqual(['Ali', 'Chadi']);
    const left = await client.from('contacts').select('first_name', { count: 'exact' });
    expect(left).toMatchObject({ count: 1, data: [{ first_name: 'Badr' }] });
  });

  it('should find a contact by phone whatever form the searched number is written in (E.164 with the organization country)', async () => {
    const { client, tenant } = await signedIn();
    await runtime.db.asSystem((tx) =>
      tx.query(`UPDATE organizations SET settings = coalesce(settings, '{}'::jsonb) || '{"default_country":"EG"}' WHERE id = $1`, [tenant.ctx.organizationId]),
    );
    await client.from('contacts').insert({ first_name: 'Rami', phones: ['+20 100 123 4567'] });
    for (const written of ['01001234567', '+201001234567', '0020 100 123 4567', '201001234567@s.whatsapp.net']) {
      const found = await client.from('contacts').select('first_name, phones').contains('phones', [written]);
      expect([written, found.data]).toEqual([written, [{ first_name: 'Rami', phones: ['+201001234567'] }]]);
    }
    const overlaps = await client.from('contacts').select('first_name').overlaps('phones', ['(010) 0123 4567', 'not a phone']);
    expect(overlaps.data).toEqual([{ first_name: 'Rami' }]);
    const proxy = await app.inject({
      method: 'GET',
      url: '/functions/v1/rest-api-proxy/contacts?select=first_name&phones=cs.{01001234567}',
      headers: tenant.key,
    });
    expect(proxy.json()).toEqual([{ first_name: 'Rami' }]);
    expect((await client.from('contacts').select('first_name').contains('phones', ['01001234568'])).data).toEqual([]);
  });

  it('should answer bad write options with a 4xx in PostgREST shape, never a 500', async () => {
    const tenant = await createTestTenant(app);
    const post = (query: string, prefer: string, payload: unknown) =>
      app.inject({
        method: 'POST',
        url: `/rest/v1/contacts?${query}`,
        headers: { ...tenant.session, prefer, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
    const cases: [string, string, unknown, number, string][] = [
      ['on_conflict=id', 'resolution=merge-duplicates', { id: 'not-a-uuid', first_name: 'X' }, 400, '22P02'],
      ['on_conflict=id', 'resolution=merge-duplicates', { id: { a: 1 }, first_name: 'X' }, 400, '22P02'],
      ['on_conflict=first_name', 'resolution=merge-duplicates', { first_name: 'X' }, 400, '42P10'],
      ['columns=nope', '', { first_name: 'X' }, 400, 'PGRST204'],
      ['', 'handling=strict, max-affected=x', { first_name: 'X' }, 400, 'PGRST122'],
      ['', '', [{ first_name: 'X' }, 'text'], 400, 'PGRST102'],
    ];
    for (const [query, prefer, payload, status, code] of cases) {
      const response = await post(query, prefer, payload);
      expect([query, prefer, response.statusCode, response.json().code]).toEqual([query, prefer, status, code]);
      expect(Object.keys(response.json()).sort()).toEqual(['code', 'details', 'hint', 'message']);
    }
    expect((await post('', '', { first_name: 'Kept' })).statusCode).toBe(201);
    const proxy = await app.inject({
      method: 'PATCH',
      url: '/functions/v1/rest-api-proxy/contacts?first_name=not.is.null',
      headers: { ...tenant.key, prefer: 'handling=strict, max-affected=0' },
      payload: { last_name: 'Y' },
    });
    expect(proxy.statusCode).toBe(400);
    expect(proxy.json()).toMatchObject({ error: 'Query result exceeds max-affected preference constraint', code: 'PGRST124' });
  });

  it('should see nothing with the anon key alone', async () => {
    const client = createClient(baseUrl, anonKey, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket as never } });
    const { data, error } = await client.from('contacts').select('*');
    expect(data).toBeNull();
    expect(error).not.toBeNull();
  });
});
