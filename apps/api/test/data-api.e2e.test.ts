import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService, DealService } from '@engage/crm';
import { TokenService } from '@engage/identity';
import { Database } from '@engage/platform';
import { createTestTenant } from '@engage/identity/testing';
import { parse } from 'csv-parse/sync';
import { startComposedApp } from './composed-app';

describe('data API reads over the composed app (/rest/v1 and the record proxy)', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startComposedApp());
  });
  afterAll(() => close());

  const tenant = () => createTestTenant(app);

  it('should filter, select and order contacts with PostgREST syntax, with Content-Range', async () => {
    const { ctx, session } = await tenant();
    const contacts = app.get(ContactService);
    await contacts.create(ctx, { first_name: 'Ali', tags: ['vip'], phones: ['+201001234567'] });
    await contacts.create(ctx, { first_name: 'Badr', tags: ['lead'] });
    await contacts.create(ctx, { first_name: 'Ali', last_name: 'Second', tags: ['vip', 'lead'] });
    const res = await app.inject({
      method: 'GET',
      url: '/rest/v1/contacts?select=first_name,last_name&tags=cs.{vip}&order=last_name.asc.nullsfirst',
      headers: { ...session, prefer: 'count=exact' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { first_name: 'Ali', last_name: null },
      { first_name: 'Ali', last_name: 'Second' },
    ]);
    expect(res.headers['content-range']).toBe('0-1/2');
    const phone = await app.inject({ method: 'GET', url: '/rest/v1/contacts?select=first_name&phones=cs.{"%2B201001234567"}', headers: session });
    expect(phone.json()).toEqual([{ first_name: 'Ali' }]);
    const pitfall = await app.inject({ method: 'GET', url: '/rest/v1/contacts?phones=cs.{"+201001234567"}', headers: session });
    expect(pitfall.statusCode).toBe(400);
    expect(pitfall.json().hint).toContain('%2B');
  });

  it('should serve deals and pipelines, and answer singular and range errors with PostgREST statuses', async () => {
    const { ctx, session } = await tenant();
    await app.get(DealService).create(ctx, { title: 'One', stage: 'qualified', value: 100 });
    const deals = await app.inject({ method: 'GET', url: '/rest/v1/deals?select=title,stage,probability&stage=eq.QUALIFIED', headers: session });
    expect(deals.json()).toEqual([{ title: 'One', stage: 'QUALIFIED', probability: 25 }]);
    const stages = await app.inject({ method: 'GET', url: '/rest/v1/pipeline_stages?select=name&order=position', headers: session });
    expect(stages.json().map((s: { name: string }) => s.name)).toEqual(['Deal', 'Qualified', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost']);
    const single = await app.inject({
      method: 'GET',
      url: '/rest/v1/deals?stage=eq.LEAD',
      headers: { ...session, accept: 'application/vnd.pgrst.object+json' },
    });
    expect(single.statusCode).toBe(406);
    expect(single.json()).toMatchObject({ code: 'PGRST116', details: expect.stringContaining('0 rows') });
    const range = await app.inject({ method: 'GET', url: '/rest/v1/deals?offset=10', headers: { ...session, prefer: 'count=exact' } });
    expect(range.statusCode).toBe(416);
  });

  it('should take an API key on the record proxy, with the {error, hint} body, and keep organizations apart', async () => {
    const a = await tenant();
    const b = await tenant();
    await app.get(ContactService).create(b.ctx, { first_name: 'Secret' });
    await app.get(ContactService).create(a.ctx, { first_name: 'Mine' });
    const proxy = await app.inject({ method: 'GET', url: '/functions/v1/rest-api-proxy/contacts?select=first_name', headers: a.key });
    expect(proxy.statusCode).toBe(200);
    expect(proxy.json()).toEqual([{ first_name: 'Mine' }]);
    const viaB = await app.inject({ method: 'GET', url: '/rest/v1/contacts?select=first_name', headers: b.session });
    expect(viaB.json()).toEqual([{ first_name: 'Secret' }]);
    const bad = await app.inject({ method: 'GET', url: '/functions/v1/rest-api-proxy/contacts?nope=eq.1', headers: a.key });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'column contacts.nope does not exist', code: '42703' });
    expect(Object.keys(bad.json())).toEqual(expect.arrayContaining(['error', 'hint']));
  });

  it('should escape CSV cells a spreadsheet would run as formulas, on /rest/v1 and the record proxy, as the CRM export does', async () => {
    const { ctx, session, key } = await tenant();
    const contacts = app.get(ContactService);
    await contacts.create(ctx, { first_name: '=HYPERLINK("http://evil.example","x")', last_name: '+SUM(1,2)', description: 'x' });
    await contacts.create(ctx, { first_name: '@SUM(1)', last_name: '-2+3' });
    const plain = await contacts.create(ctx, { first_name: 'Plain', last_name: 'a=b', phones: ['+201001234567'] });
    // The service trims text; a tab or carriage return at the start can still arrive through SQL.
    await app
      .get(Database)
      .asSystem((tx) => tx.query(`UPDATE contacts SET description = E'\\tTab' WHERE last_name = '-2+3' AND organization_id = $1`, [ctx.organizationId]));
    await app.get(Database).asSystem((tx) => tx.query(`UPDATE contacts SET description = E'\\rCR' WHERE id = $1`, [plain.id]));
    const query = 'select=first_name,last_name,description&order=created_at';
    const expected = [
      'first_name,last_name,description',
      '"\'=HYPERLINK(""http://evil.example"",""x"")","\'+SUM(1,2)",x',
      '"\'@SUM(1)",\'-2+3,"\'\tTab"',
      'Plain,a=b,"\'\rCR"',
    ].join('\n');
    const rest = await app.inject({ method: 'GET', url: `/rest/v1/contacts?${query}`, headers: { ...session, accept: 'text/csv' } });
    expect(rest.statusCode).toBe(200);
    expect(rest.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(rest.body).toBe(expected);
    const proxy = await app.inject({ method: 'GET', url: `/functions/v1/rest-api-proxy/contacts?${query}`, headers: { ...key, accept: 'text/csv' } });
    expect(proxy.statusCode).toBe(200);
    expect(proxy.body).toBe(expected);
    // The CRM's export writes the same cells (its own quoting aside).
    const exported = await app.inject({ method: 'GET', url: '/functions/v1/contacts/export?columns=first_name,last_name,description', headers: session });
    expect(parse(exported.body)).toEqual(parse(expected));
    // A written row answered as CSV (return=representation) is escaped too.
    const written = await app.inject({
      method: 'POST',
      url: '/functions/v1/rest-api-proxy/contacts?select=first_name',
      headers: { ...key, accept: 'text/csv', prefer: 'return=representation', 'content-type': 'application/json' },
      payload: { first_name: '=1+1' },
    });
    expect(written.statusCode).toBe(201);
    expect(written.body).toBe("first_name\n'=1+1");
  });

  it('should embed the contact and the owner profile of deals (§4.6)', async () => {
    const { ctx, session, email } = await tenant();
    const contact = await app.get(ContactService).create(ctx, { first_name: 'Embedded' });
    await app.get(DealService).create(ctx, { title: 'With links', contact_id: contact.id, owner_id: ctx.userId });
    await app.get(DealService).create(ctx, { title: 'Bare' });
    const res = await app.inject({ method: 'GET', url: '/rest/v1/deals?select=*,contacts(*),profiles!deals_owner_id_fkey(*)&order=title', headers: session });
    expect(res.statusCode).toBe(200);
    const [bare, linked] = res.json();
    expect(bare).toMatchObject({ title: 'Bare', contacts: null, profiles: null });
    expect(linked).toMatchObject({
      title: 'With links',
      contacts: { id: contact.id, first_name: 'Embedded' },
      profiles: { id: ctx.userId, email, role: 'OWNER' },
    });
    const inner = await app.inject({
      method: 'GET',
      url: '/rest/v1/deals?select=title,contacts!inner(first_name)&contacts.first_name=eq.Embedded',
      headers: session,
    });
    expect(inner.json()).toEqual([{ title: 'With links', contacts: { first_name: 'Embedded' } }]);
  });

  it('should show profiles of the own organization only (the view runs with the caller’s row-level security)', async () => {
    const a = await tenant();
    const b = await tenant();
    const res = await app.inject({ method: 'GET', url: '/functions/v1/rest-api-proxy/profiles?select=email,role', headers: a.key });
    expect(res.json()).toEqual([{ email: a.email, role: 'OWNER' }]);
    const other = await app.inject({ method: 'GET', url: `/functions/v1/rest-api-proxy/profiles?email=eq.${encodeURIComponent(b.email)}`, headers: a.key });
    expect(other.json()).toEqual([]);
  });

  it('should refuse missing, anonymous and API-key credentials on /rest/v1, and unknown tables', async () => {
    const { session, key } = await tenant();
    expect((await app.inject({ method: 'GET', url: '/rest/v1/contacts' })).statusCode).toBe(401);
    const anon = await app.get(TokenService).issueAnonKey();
    expect((await app.inject({ method: 'GET', url: '/rest/v1/contacts', headers: { authorization: `Bearer ${anon}`, apikey: anon } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/rest/v1/contacts', headers: key })).statusCode).toBe(401);
    const unknown = await app.inject({ method: 'GET', url: '/rest/v1/users', headers: session });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('PGRST205');
    const head = await app.inject({ method: 'HEAD', url: '/rest/v1/contacts', headers: { ...session, prefer: 'count=exact' } });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-range']).toMatch(/\/\d+$/);
  });
});
