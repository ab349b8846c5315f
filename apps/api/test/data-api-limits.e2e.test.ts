import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

// The data API's limits over HTTP, in both families' error shapes: /rest/v1 (session, PostgREST's
// {code, message, details, hint}) and the record proxy (API key, {error, hint, code, details}).
describe('data API limits over the composed app', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let tenant: TestTenant;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp({
      env: { DATA_API_MAX_ROWS: '5', DATA_API_MAX_RESPONSE_BYTES: '65536', DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
    }));
    tenant = await createTestTenant(app);
    const big = { notes: 'x'.repeat(16_000) }; // near the CRM's 16 KiB cap
    for (let i = 0; i < 7; i++) await app.get(ContactService).create(tenant.ctx, { first_name: `C${i}`, custom_fields: i < 5 ? big : {} });
  });
  afterAll(() => close());

  const rest = (path: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: `/rest/v1/${path}`, headers: { ...tenant.session, ...headers } });
  const proxy = (path: string) => app.inject({ method: 'GET', url: `/functions/v1/rest-api-proxy/${path}`, headers: tenant.key });
  const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}:custom_fields`).join(',');
  const nest = (levels: number) => {
    let inner = 'id';
    for (let level = levels; level >= 1; level--) inner = `id,${level % 2 === 1 ? 'contacts' : 'companies'}(${inner})`;
    return inner;
  };

  it("should refuse the issue's alias request with 400 in each family's shape", async () => {
    // 700 aliases make a 13 KB query string, refused for its length alone; 300 for their number.
    expect((await rest(`contacts?custom_fields=not.eq.{}&select=${aliases(700)}`)).json()).toMatchObject({ code: 'data_api.query_too_long' });
    const path = `contacts?custom_fields=not.eq.{}&select=${aliases(300)}`;
    const viaRest = await rest(path);
    expect(viaRest.statusCode).toBe(400);
    const message = 'The select has more than 200 items';
    expect(viaRest.json()).toEqual({ code: 'data_api.select_too_large', message, details: null, hint: expect.any(String) });
    const viaProxy = await proxy(path);
    expect(viaProxy.statusCode).toBe(400);
    expect(viaProxy.json()).toEqual({ error: message, code: 'data_api.select_too_large', details: null, hint: expect.any(String) });
    expect((await rest(`contacts?select=${aliases(5)}`)).json()).toMatchObject({ code: 'data_api.select_repeated' });
  });

  it('should refuse deep embeds and deep logic trees with 400, not 500', async () => {
    for (const path of [`companies?select=${nest(800)}`, `companies?select=${nest(900)}`, `companies?select=${nest(9)}`]) {
      const response = await rest(path);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toMatch(/^data_api\.(query_too_long|embed_too_deep)$/);
    }
    expect((await rest(`companies?select=${nest(8)}`)).statusCode).toBe(200);
    let tree = 'first_name.eq.x';
    for (let i = 0; i < 2000; i++) tree = `${i % 2 ? 'or' : 'and'}(${tree},first_name.eq.y)`;
    expect((await rest(`contacts?or=(${tree})`)).statusCode).toBe(400);
    expect((await proxy(`contacts?or=(${tree.slice(-400)})`)).statusCode).toBe(400);
  });

  it('should cut a read to DATA_API_MAX_ROWS, Content-Range telling the truth', async () => {
    const page = await rest('contacts?select=first_name&order=first_name&limit=100', { prefer: 'count=exact' });
    expect(page.statusCode).toBe(206);
    expect(page.headers['content-range']).toBe('0-4/7');
    expect(page.json()).toHaveLength(5);
    const rest2 = await rest('contacts?select=first_name&order=first_name&offset=5');
    expect(rest2.json()).toEqual([{ first_name: 'C5' }, { first_name: 'C6' }]);
  });

  it('should refuse a response over DATA_API_MAX_RESPONSE_BYTES, and answer it within', async () => {
    const over = await proxy('contacts?select=first_name,custom_fields');
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'data_api.response_too_large', error: 'The response would be larger than 65536 bytes' });
    expect((await rest('contacts?select=first_name,custom_fields&limit=3')).statusCode).toBe(200);
  });

  it('should answer an unknown text search configuration with 400 42704', async () => {
    const response = await rest('contacts?first_name=fts(nosuchconfig).x');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: '42704', message: 'text search configuration "nosuchconfig" does not exist' });
    expect((await proxy('contacts?first_name=fts(nosuchconfig).x')).json()).toMatchObject({ code: '42704', error: expect.stringContaining('nosuchconfig') });
  });

  it('should cancel a read past the statement timeout and answer 503 with a clear body, then serve the next', async () => {
    // A lock held by another transaction keeps the read waiting; the timeout counts the wait.
    const [viaRest, viaProxy] = await runtime.db.asSystem(async (tx) => {
      await tx.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE');
      return [await rest('contacts?select=id'), await proxy('contacts?select=id')];
    });
    expect(viaRest.statusCode).toBe(503);
    const message = 'canceling statement due to statement timeout';
    expect(viaRest.json()).toEqual({ code: '57014', message, details: null, hint: expect.stringContaining('statement timeout') });
    expect(viaProxy.statusCode).toBe(503);
    expect(viaProxy.json()).toMatchObject({ code: '57014', error: 'canceling statement due to statement timeout' });
    expect((await rest('contacts?select=id&limit=1')).statusCode).toBe(200);
  });
});
