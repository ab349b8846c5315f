import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

describe('data API writes (§4.5 record proxy and /rest/v1)', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startComposedApp());
  });
  afterAll(() => close());

  const tenant = () => createTestTenant(app);
  const proxy = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, headers: Record<string, string>, payload?: unknown) =>
    app.inject({ method, url: `/functions/v1/rest-api-proxy${path}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const outboxTypes = async (orgId: string) =>
    (await runtime.db.asSystem((tx) => tx.query<{ type: string }>('SELECT type FROM outbox WHERE organization_id = $1 ORDER BY seq', [orgId]))).map(
      (r) => r.type,
    );

  it('should create a contact with normalised phones and generated fields, and refuse a duplicate phone', async () => {
    const { ctx, key } = await tenant();
    const created = await proxy('POST', '/contacts', key, {
      first_name: 'Rami',
      phones: ['+20 100 123 4567'],
      organization_id: '00000000-0000-0000-0000-000000000000',
    });
    expect(created.statusCode).toBe(201);
    const [row] = created.json();
    expect(row).toMatchObject({
      first_name: 'Rami',
      phones: ['+201001234567'],
      organization_id: ctx.organizationId,
      id: expect.any(String),
      created_at: expect.any(String),
    });
    const again = await proxy('POST', '/contacts', key, { first_name: 'Twin', phones: ['00201001234567'] });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: expect.stringContaining('+201001234567'), code: 'contact.duplicate_phone' });
    expect(await outboxTypes(ctx.organizationId)).toContain('contact.created');
  });

  it('should move a deal through PATCH with history, probability and deal.stage.changed, like a kanban move', async () => {
    const { ctx, session } = await tenant();
    const created = await app.inject({
      method: 'POST',
      url: '/rest/v1/deals',
      headers: { ...session, prefer: 'return=representation' },
      payload: { title: 'Via REST', stage: 'lead', value: 500 },
    });
    expect(created.statusCode).toBe(201);
    const deal = created.json()[0];
    const patched = await app.inject({ method: 'PATCH', url: `/rest/v1/deals?id=eq.${deal.id}`, headers: session, payload: { stage: 'CLOSED_WON' } });
    expect(patched.statusCode).toBe(204);
    const read = await app.inject({ method: 'GET', url: `/rest/v1/deals?id=eq.${deal.id}&select=stage,probability`, headers: session });
    expect(read.json()).toEqual([{ stage: 'CLOSED_WON', probability: 100 }]);
    const history = await app.inject({
      method: 'GET',
      url: `/rest/v1/deal_stage_history?deal_id=eq.${deal.id}&select=from_stage,to_stage&order=id`,
      headers: session,
    });
    expect(history.json()).toEqual([
      { from_stage: null, to_stage: 'LEAD' },
      { from_stage: 'LEAD', to_stage: 'CLOSED_WON' },
    ]);
    expect(await outboxTypes(ctx.organizationId)).toEqual(expect.arrayContaining(['deal.created', 'deal.updated', 'deal.stage.changed']));
  });

  it('should update and delete every record a filter matches (batch), and only the organization’s own', async () => {
    const a = await tenant();
    const b = await tenant();
    for (const name of ['A1', 'A2', 'A3']) await proxy('POST', '/contacts', a.key, { first_name: name, tags: ['batch'] });
    await proxy('POST', '/contacts', b.key, { first_name: 'B1', tags: ['batch'] });
    const updated = await proxy('PATCH', '/contacts?tags=cs.{batch}', a.key, { source: 'import' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().map((c: { source: string }) => c.source)).toEqual(['import', 'import', 'import']);
    const deleted = await proxy('DELETE', '/contacts?first_name=in.(A1,A2)', a.key);
    expect(
      deleted
        .json()
        .map((c: { first_name: string }) => c.first_name)
        .sort(),
    ).toEqual(['A1', 'A2']);
    expect((await proxy('GET', '/contacts?select=first_name', a.key)).json()).toEqual([{ first_name: 'A3' }]);
    expect((await proxy('GET', '/contacts?select=first_name,source', b.key)).json()).toEqual([{ first_name: 'B1', source: '' }]);
  });

  it('should refuse a PATCH or DELETE without a filter, bad bodies and unwritable tables with clear 4xx', async () => {
    const { key, session } = await tenant();
    const unfiltered = await proxy('DELETE', '/contacts', key);
    expect(unfiltered.statusCode).toBe(400);
    expect(unfiltered.json().hint).toContain('id=not.is.null');
    expect((await proxy('PATCH', '/contacts?select=id', key, { source: 'x' })).statusCode).toBe(400);
    expect((await proxy('POST', '/contacts', key, [])).statusCode).toBe(400);
    const jsonString = await app.inject({
      method: 'POST',
      url: '/functions/v1/rest-api-proxy/contacts',
      headers: { ...key, 'content-type': 'application/json' },
      payload: '"text"',
    });
    expect(jsonString.statusCode).toBe(400);
    expect((await proxy('POST', '/contacts', key, 'text')).statusCode).toBe(415); // not JSON at all
    expect((await proxy('POST', '/contacts', key, { first_name: 'X', phones: ['12'] })).json()).toMatchObject({ error: '"12" is not a valid phone number' });
    expect((await proxy('PATCH', '/deals?stage=eq.LEAD', key, { stage: 'WHATEVER' })).statusCode).toBe(200); // no deals match: nothing to refuse
    expect((await proxy('POST', '/deal_stage_history', key, { deal_id: '00000000-0000-0000-0000-000000000000' })).statusCode).toBe(405);
    expect((await app.inject({ method: 'POST', url: '/rest/v1/contacts', headers: key, payload: { first_name: 'X' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/rest/v1/contacts', headers: session, payload: { first_name: 'Y', id: 'x' } })).statusCode).toBe(201);
  });
});
