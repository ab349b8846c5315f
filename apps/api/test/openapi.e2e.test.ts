import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ContactService, DealService } from '@engage/crm';
import { createTestTenant } from '@engage/identity/testing';
import { startComposedApp } from './composed-app';

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name?: string; $ref?: string }[] }>>;
  components: { schemas: Record<string, object> };
};

// Resolves the document's local $refs so a response schema can be checked on its own.
function validatorFor(doc: Doc) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ components: doc.components }, 'doc');
  return (schema: object) => ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')));
}

describe('the OpenAPI description of the data API (GET /rest/v1/ and /docs)', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startComposedApp());
  });
  afterAll(() => close());

  it('should answer GET /rest/v1/ with every table, its columns and the operations it allows', async () => {
    const res = await app.inject({ method: 'GET', url: '/rest/v1/', headers: { accept: 'application/openapi+json' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/openapi\+json/);
    const doc = res.json() as Doc & { openapi: string; servers: { url: string }[] };
    expect(doc.openapi).toMatch(/^3\.0/);
    expect(doc.servers).toEqual([{ url: '/rest/v1' }]);
    // 25, the bot tables (bot_flows, bot_flow_versions, bot_sessions) and campaigns' segments, broadcast_recipients,
    // sequences and sequence_enrollments.
    expect(Object.keys(doc.paths)).toHaveLength(32);
    expect(Object.keys(doc.paths['/contacts']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect(Object.keys(doc.paths['/call_records'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/timeline_entries'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/reengagement_nudges'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/messages'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/scheduled_messages'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/automation_rules']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect(Object.keys(doc.paths['/automation_runs'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/segments']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect(Object.keys(doc.paths['/broadcast_recipients'])).toEqual(['get']);
    expect([doc.paths['/sequences'], doc.paths['/sequence_enrollments']].map((item) => Object.keys(item))).toEqual([['get'], ['get']]);
    expect(Object.keys(doc.paths['/bot_flows']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect([doc.paths['/bot_flow_versions'], doc.paths['/bot_sessions']].map((item) => Object.keys(item))).toEqual([['get'], ['get']]);
    const contact = doc.components.schemas.contacts as { properties: Record<string, { type?: string; format?: string; nullable?: boolean }> };
    expect(contact.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(contact.properties.id.nullable).toBeUndefined();
    expect(contact.properties.last_name).toMatchObject({ type: 'string', nullable: true });
    expect(contact.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
    const names = doc.paths['/contacts'].get.parameters?.map((p) => p.name ?? p.$ref);
    expect(names).toEqual(
      expect.arrayContaining(['first_name', 'tags', '#/components/parameters/select', '#/components/parameters/range', '#/components/parameters/preferCount']),
    );
    expect(Object.keys(doc.paths['/contacts'].get.responses)).toEqual(expect.arrayContaining(['200', '206', '400', '401', '404', '406', '416']));
    expect(doc.components.schemas.PostgrestError).toMatchObject({ required: ['code', 'message', 'details', 'hint'] });
  });

  it('should answer GET /rest/v1 with JSON by default and refuse a media type it cannot give with 406', async () => {
    const plain = await app.inject({ method: 'GET', url: '/rest/v1' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const csv = await app.inject({ method: 'GET', url: '/rest/v1/', headers: { accept: 'text/csv' } });
    expect(csv.statusCode).toBe(406);
    expect(csv.json()).toMatchObject({ code: 'PGRST107', hint: null });
  });

  it("should merge both families of every table into /docs, with each family's error shape", async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as Doc;
    const tables = Object.keys(doc.paths).filter((path) => path.startsWith('/rest/v1/') && !path.startsWith('/rest/v1/analytics/'));
    expect(tables).toHaveLength(32);
    expect(Object.keys(doc.paths).filter((path) => /^\/functions\/v1\/rest-api-proxy\/[a-z_]+$/.test(path))).toHaveLength(32);
    // The analytics reports, and the widget list's own answer ({widgets}) in place of the table's array.
    expect(
      Object.keys(doc.paths)
        .filter((path) => path.startsWith('/rest/v1/analytics/'))
        .sort(),
    ).toEqual(['/rest/v1/analytics/deals', '/rest/v1/analytics/inbox', '/rest/v1/analytics/metrics']);
    expect(JSON.stringify(doc.paths['/rest/v1/dashboard_widgets'].get.responses['200'])).toContain('"widgets"');
    expect(Object.keys(doc.paths['/rest/v1/dashboard_widgets']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    const proxyError = JSON.stringify(doc.paths['/functions/v1/rest-api-proxy/deals'].post.responses['409']);
    expect(proxyError).toContain('#/components/schemas/RecordProxyError');
    expect(JSON.stringify(doc.paths['/rest/v1/deals'].post.responses['409'])).toContain('#/components/schemas/PostgrestError');
    const move = doc.paths['/functions/v1/deals/{id}/move'].post.responses as Record<string, { content?: Record<string, { schema: { required?: string[] } }> }>;
    expect(Object.keys(move).sort()).toEqual(['200', '400', '401', '404', '413', '414', '415', '429']);
    expect(move['404'].content?.['application/json'].schema.required).toEqual(['error', 'code']);
    // Ids in function and auth paths are UUIDs; words (a table, an action) are not.
    const params = (path: string, method: string) => doc.paths[path][method].parameters as { name: string; in: string; schema: object }[];
    expect(params('/functions/v1/deals/{id}/move', 'post').find((p) => p.name === 'id')?.schema).toEqual({ type: 'string', format: 'uuid' });
    const uuidIds = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.values(item)
        .flatMap((op) => (op.parameters ?? []) as { name: string; in: string; schema?: { format?: string } }[])
        .filter((p) => p.in === 'path' && /^(id|[a-z][A-Za-z]*Id)$/.test(p.name) && /^\/(functions|auth)\/v1\//.test(path)),
    );
    expect(uuidIds.length).toBeGreaterThanOrEqual(18);
    expect(uuidIds.every((p) => p.schema?.format === 'uuid')).toBe(true);
    // Request bodies carry their DTOs' class-validator rules.
    const channel = doc.components.schemas.ChannelAccountDto as { properties: Record<string, object> };
    expect(channel.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    const assign = doc.components.schemas.AssignDto as { properties: Record<string, object> };
    expect(assign.properties.assignee_id).toMatchObject({ type: 'string', format: 'uuid', nullable: true });
    const token = doc.paths['/auth/v1/token'].post.responses as Record<string, { content?: Record<string, { schema: { oneOf?: unknown[] } }> }>;
    expect(token['429'].content?.['application/json'].schema.oneOf).toHaveLength(2);
  });

  it("should answer a path parameter longer than the router takes with 414 in the family's body", async () => {
    const { session } = await createTestTenant(app);
    const res = await app.inject({ method: 'GET', url: `/functions/v1/contacts/${'x'.repeat(101)}/timeline`, headers: session });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ error: 'A path parameter is longer than 100 characters', code: 'uri_too_long' });
  });

  it('should describe what reads and writes really answer (rows and errors validated against the document)', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as Doc;
    const compile = validatorFor(doc);
    const { ctx, session } = await createTestTenant(app);
    await app.get(ContactService).create(ctx, { first_name: 'Ada', tags: ['vip'], phones: ['+201001234567'], custom_fields: { plan: 'gold' } });
    await app.get(DealService).create(ctx, { title: 'One', stage: 'qualified', value: 100 });
    for (const table of ['contacts', 'deals', 'pipelines', 'pipeline_stages', 'profiles', 'timeline_entries']) {
      const res = await app.inject({ method: 'GET', url: `/rest/v1/${table}`, headers: session });
      expect(res.json().length).toBeGreaterThan(table === 'timeline_entries' ? -1 : 0);
      const ok = doc.paths[`/rest/v1/${table}`].get.responses['200'] as { content: Record<string, { schema: object }> };
      const check = compile(ok.content['application/json'].schema);
      expect({ table, valid: check(res.json()), errors: check.errors }).toEqual({ table, valid: true, errors: null });
    }
    const bad = await app.inject({ method: 'GET', url: '/rest/v1/contacts?nope=eq.1', headers: session });
    expect(bad.statusCode).toBe(400);
    expect(compile(doc.components.schemas.PostgrestError)(bad.json())).toBe(true);
    const created = await app.inject({
      method: 'POST',
      url: '/rest/v1/deals',
      headers: { ...session, prefer: 'return=representation' },
      payload: { title: 'Two', value: 5 },
    });
    expect(created.statusCode).toBe(201);
    const check = compile({ type: 'array', items: doc.components.schemas.deals });
    expect(check(created.json())).toBe(true);
  });
});
