import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { createTestTenant, memberHeaders, startAutomationApp, type TestTenant } from '../../testing/automation-test-app';

describe('/rest/v1/bot_flows and publishing', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startAutomationApp());
  });
  afterAll(() => close());

  const flows = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', headers: Record<string, string>, query = '', payload?: unknown) =>
    app.inject({
      method,
      url: `/rest/v1/bot_flows${query}`,
      headers: { ...headers, prefer: 'return=representation' },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const publish = (headers: Record<string, string>, id: string) => app.inject({ method: 'POST', url: `/functions/v1/automation/bots/${id}/publish`, headers });
  const channel = async (tenant: TestTenant) => {
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: tenant.key,
      payload: { kind: 'chat_app', name: 'Line' },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    return (res.json() as { channel_account: { id: string } }).channel_account.id;
  };
  const definition = {
    start: 'hello',
    nodes: [
      { id: 'hello', type: 'message', text: 'Hi {{contact.first_name | there}}!', next: 'name' },
      { id: 'name', type: 'ask', text: 'Your name?', save_as: 'contact.first_name', next: 'bye' },
      { id: 'bye', type: 'end', text: 'Thanks {{variables.nothing | friend}}' },
    ],
  };
  const validFor = (accountId: string) => ({ name: 'Welcome', channel_account_ids: [accountId], trigger: { type: 'new_conversation' }, definition });

  it('should let OWNER and ADMIN write flows, with the defaults filled in, and every member read them', async () => {
    const tenant = await createTestTenant(app);
    const valid = validFor(await channel(tenant));
    const created = await flows('POST', tenant.session, '', valid);
    expect(created.statusCode).toBe(201);
    const [flow] = created.json();
    expect(flow).toMatchObject({
      ...valid,
      organization_id: tenant.ctx.organizationId,
      is_active: true,
      settings: { expire_minutes: 240, finish_keywords: [], unknown_reply: null },
      published_version: null,
      created_by: tenant.ctx.userId,
    });
    expect(flow.definition.nodes[1]).toEqual({ ...valid.definition.nodes[1], validate: 'text', max_retries: 2 });
    const admin = await memberHeaders(app, tenant, 'ADMIN');
    const patched = await flows('PATCH', admin, `?id=eq.${flow.id}`, { name: 'Renamed', settings: { finish_keywords: ['stop'] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()[0]).toMatchObject({ name: 'Renamed', settings: { expire_minutes: 240, finish_keywords: ['stop'] }, definition: flow.definition });

    const agent = await memberHeaders(app, tenant, 'AGENT');
    expect((await flows('POST', agent, '', valid)).statusCode).toBe(403);
    expect((await flows('PATCH', agent, `?id=eq.${flow.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await publish(agent, flow.id)).statusCode).toBe(403);
    const byKey = await app.inject({ method: 'POST', url: '/functions/v1/rest-api-proxy/bot_flows', headers: tenant.key, payload: valid });
    expect(byKey.statusCode).toBe(403);
    expect((await flows('GET', agent, '?select=name')).json()).toEqual([{ name: 'Renamed' }]);
    expect((await flows('DELETE', admin, `?id=eq.${flow.id}`)).statusCode).toBe(200);
    expect((await flows('GET', tenant.session)).json()).toEqual([]);
  });

  it("should keep each organization's flows to itself and refuse another organization's channel account", async () => {
    const owner = await createTestTenant(app);
    const other = await createTestTenant(app);
    const [flow] = (await flows('POST', owner.session, '', validFor(await channel(owner)))).json();
    expect((await flows('GET', other.session, `?id=eq.${flow.id}`)).json()).toEqual([]);
    expect((await flows('PATCH', other.session, `?id=eq.${flow.id}`, { name: 'Stolen' })).json()).toEqual([]);
    const foreign = await flows('POST', other.session, '', validFor(await channel(owner)));
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ code: 'bot_flow.invalid', details: { path: 'channel_account_ids[0]' } });
    expect((await publish(other.session, flow.id)).statusCode).toBe(404);
    expect((await flows('GET', owner.session, `?id=eq.${flow.id}&select=name`)).json()).toEqual([{ name: 'Welcome' }]);
  });

  it('should answer bad input with 400 naming the path, never 500', async () => {
    const tenant = await createTestTenant(app);
    const valid = validFor(await channel(tenant));
    const cases: [unknown, string][] = [
      [{ ...valid, name: undefined }, 'name'],
      [{ ...valid, name: 'x'.repeat(201) }, 'name'],
      [{ ...valid, channel_account_ids: 'all' }, 'channel_account_ids'],
      [{ ...valid, channel_account_ids: [randomUUID()] }, 'channel_account_ids[0]'],
      [{ ...valid, trigger: { type: 'keyword', keywords: [] } }, 'trigger.keywords'],
      [{ ...valid, definition: { start: 'a', nodes: [{ id: 'a', type: 'ask', text: 'Q', validate: 'colour' }] } }, 'definition.nodes[0].validate'],
      [{ ...valid, definition: { start: 'a', nodes: [{ id: 'a', type: 'message', text: 42 }] } }, 'definition.nodes[0].text'],
      [{ ...valid, settings: { unknown_reply: 'x'.repeat(4097) } }, 'settings.unknown_reply'],
      [{ ...valid, is_active: 'yes' }, 'is_active'],
    ];
    for (const [payload, path] of cases) {
      const res = await flows('POST', tenant.session, '', payload);
      expect({ path, status: res.statusCode, code: res.json().code, at: res.json().details?.path }).toEqual({
        path,
        status: 400,
        code: 'bot_flow.invalid',
        at: path,
      });
    }
    expect((await flows('POST', tenant.session, '', { ...valid, colour: 'red' })).json()).toMatchObject({ code: 'PGRST204' });
    const [flow] = (await flows('POST', tenant.session, '', valid)).json();
    const badPatch = await flows('PATCH', tenant.session, `?id=eq.${flow.id}`, { trigger: { type: 'keyword' } });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().details).toEqual({ path: 'trigger.keywords' });
    const badId = await publish(tenant.session, 'not-a-uuid');
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ code: 'bot_flow.invalid_id' });
    expect((await publish(tenant.session, randomUUID())).statusCode).toBe(404);
  });

  it('should publish immutable versions, and refuse a graph with bad nodes naming each', async () => {
    const tenant = await createTestTenant(app);
    const [flow] = (await flows('POST', tenant.session, '', validFor(await channel(tenant)))).json();
    const first = await publish(tenant.session, flow.id);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ bot_flow_id: flow.id, version: 1 });
    await flows('PATCH', tenant.session, `?id=eq.${flow.id}`, { definition: { ...definition, nodes: [{ id: 'hello', type: 'end', text: 'Closed today' }] } });
    expect((await publish(tenant.session, flow.id)).json()).toMatchObject({ version: 2 });
    const versions = await app.inject({
      method: 'GET',
      url: `/rest/v1/bot_flow_versions?bot_flow_id=eq.${flow.id}&select=version,definition&order=version`,
      headers: tenant.session,
    });
    expect(versions.json().map((v: { version: number; definition: { nodes: unknown[] } }) => [v.version, v.definition.nodes.length])).toEqual([
      [1, 3],
      [2, 1],
    ]);
    expect((await flows('GET', tenant.session, `?id=eq.${flow.id}&select=published_version`)).json()).toEqual([{ published_version: 2 }]);
    // Read-only through the data API, and unchangeable in the database.
    const post = await app.inject({ method: 'POST', url: '/rest/v1/bot_flow_versions', headers: tenant.session, payload: { bot_flow_id: flow.id } });
    expect(post.statusCode).toBe(405);
    const sessions = await app.inject({ method: 'POST', url: '/rest/v1/bot_sessions', headers: tenant.session, payload: { bot_flow_id: flow.id } });
    expect(sessions.statusCode).toBe(405);
    await expect(
      runtime.db.inTenant(tenant.ctx, (tx) => tx.execute(`UPDATE bot_flow_versions SET definition = '{}' WHERE bot_flow_id = $1`, [flow.id])),
    ).rejects.toThrow(/cannot be changed/);

    const broken = {
      start: 'hello',
      nodes: [
        { id: 'hello', type: 'message', text: 'Hi', next: 'menu' },
        { id: 'menu', type: 'ask', text: 'Pick', validate: 'choice', next: 'loop' },
        { id: 'loop', type: 'set_field', field: 'variables.n', value: 1, next: 'tag' },
        { id: 'tag', type: 'add_tags', tags: ['x'], next: 'loop' },
        { id: 'hook', type: 'webhook', url: 'https://example.com/hook', next: 'ghost' },
      ],
    };
    await flows('PATCH', tenant.session, `?id=eq.${flow.id}`, { definition: broken });
    const refused = await publish(tenant.session, flow.id);
    expect(refused.statusCode).toBe(400);
    const body = refused.json();
    expect(body.code).toBe('bot_flow.invalid_graph');
    // The functions' answer names each bad node, with the path of what is wrong, in its message.
    expect(body.error).toBe(
      'the flow cannot be published: ' +
        [
          'node "menu" (definition.nodes[1].choices): a choice ask needs choices',
          'node "hook" (definition.nodes[4].next): names "ghost", which is not a node',
          'node "hook" (definition.nodes[4]): is not reachable from the start',
          'node "loop" (definition.nodes[2]): is on a cycle with no ask (nodes loop, tag)',
          'node "tag" (definition.nodes[3]): is on a cycle with no ask (nodes loop, tag)',
        ].join('; '),
    );
    expect((await flows('GET', tenant.session, `?id=eq.${flow.id}&select=published_version`)).json()).toEqual([{ published_version: 2 }]);
  });
});
