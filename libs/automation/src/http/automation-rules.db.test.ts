import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { createTestTenant, memberHeaders, startAutomationApp } from '../testing/automation-test-app';

describe('/rest/v1/automation_rules and /rest/v1/automation_runs', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startAutomationApp());
  });
  afterAll(() => close());

  const rules = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', headers: Record<string, string>, query = '', payload?: unknown) =>
    app.inject({
      method,
      url: `/rest/v1/automation_rules${query}`,
      headers: { ...headers, prefer: 'return=representation' },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const valid = {
    name: 'Price questions',
    event: 'message.received',
    conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'price' }] },
    actions: [{ type: 'send_message', text: 'Hi {{contact.first_name | there}}, our prices: https://example.com/prices' }],
  };

  it('should let OWNER and ADMIN create, change and delete rules, with the defaults filled in', async () => {
    const tenant = await createTestTenant(app);
    const created = await rules('POST', tenant.session, '', valid);
    expect(created.statusCode).toBe(201);
    const [rule] = created.json();
    expect(rule).toMatchObject({
      ...valid,
      organization_id: tenant.ctx.organizationId,
      description: '',
      event_options: {},
      is_active: true,
      position: 0,
      created_by: tenant.ctx.userId,
    });
    expect(rule).not.toHaveProperty('action_secrets');
    const admin = await memberHeaders(app, tenant, 'ADMIN');
    const byAdmin = await rules('POST', admin, '', { ...valid, name: 'Second', position: 2, is_active: false });
    expect(byAdmin.statusCode).toBe(201);
    const patched = await rules('PATCH', admin, `?id=eq.${rule.id}`, { name: 'Renamed', position: 5 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()[0]).toMatchObject({ name: 'Renamed', position: 5, conditions: valid.conditions });
    expect((await rules('DELETE', tenant.session, `?id=eq.${byAdmin.json()[0].id}`)).statusCode).toBe(200);
    const left = (await rules('GET', tenant.session, '?select=id,name&order=position')).json();
    expect(left).toEqual([{ id: rule.id, name: 'Renamed' }]);
  });

  it('should refuse writes by an AGENT and an API key with 403, and let every member read', async () => {
    const tenant = await createTestTenant(app);
    const [rule] = (await rules('POST', tenant.session, '', valid)).json();
    const agent = await memberHeaders(app, tenant, 'AGENT');
    const refused = await rules('POST', agent, '', valid);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: '42501' });
    expect((await rules('PATCH', agent, `?id=eq.${rule.id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await rules('DELETE', agent, `?id=eq.${rule.id}`)).statusCode).toBe(403);
    const byKey = await app.inject({ method: 'POST', url: '/functions/v1/rest-api-proxy/automation_rules', headers: tenant.key, payload: valid });
    expect(byKey.statusCode).toBe(403);
    for (const headers of [agent, await memberHeaders(app, tenant, 'PROJECT_MANAGER'), tenant.session]) {
      const read = await rules('GET', headers, '?select=id,name');
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual([{ id: rule.id, name: valid.name }]);
    }
    expect((await rules('GET', tenant.session, '?select=name')).json()).toEqual([{ name: valid.name }]);
  });

  it("should not show, change or delete another organization's rule", async () => {
    const owner = await createTestTenant(app);
    const other = await createTestTenant(app);
    const [rule] = (await rules('POST', owner.session, '', valid)).json();
    expect((await rules('GET', other.session, `?id=eq.${rule.id}`)).json()).toEqual([]);
    const patched = await rules('PATCH', other.session, `?id=eq.${rule.id}`, { name: 'Stolen' });
    expect(patched.json()).toEqual([]);
    await rules('DELETE', other.session, `?id=eq.${rule.id}`);
    expect((await rules('GET', owner.session, `?id=eq.${rule.id}&select=name`)).json()).toEqual([{ name: valid.name }]);
  });

  it('should answer bad input with 400 naming the path of what is wrong, never 500', async () => {
    const tenant = await createTestTenant(app);
    const cases: [unknown, string, RegExp][] = [
      [{ ...valid, name: undefined }, 'name', /required/],
      [{ ...valid, name: 42 }, 'name', /string/],
      [{ ...valid, name: 'x'.repeat(201) }, 'name', /at most 200/],
      [{ ...valid, event: 'message.deleted' }, 'event', /not an event/],
      [
        {
          ...valid,
          conditions: {
            all: [
              { field: 'message.content', operator: 'contains', value: 'a' },
              { field: 'message.content', operator: 'like', value: 'a' },
            ],
          },
        },
        'conditions.all[1].operator',
        /not an operator/,
      ],
      [
        { ...valid, conditions: { all: [{ any: [{ field: 'deal.value', operator: 'greater_than', value: 1 }] }] } },
        'conditions.all[0].any[0].field',
        /about a message/,
      ],
      [{ ...valid, conditions: { all: [{ field: 'message.content', operator: 'matches', value: '(x+)+\\1' }] } }, 'conditions.all[0].value', /linear-time/],
      [{ ...valid, conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'a', extra: 1 }] } }, 'conditions.all[0].extra', /unknown key/],
      [{ ...valid, actions: [{ type: 'send_message', text: 'x'.repeat(4097) }] }, 'actions[0].text', /at most 4096/],
      [{ ...valid, actions: [{ type: 'send_message', text: 'Hi {{contact.nickname}}' }] }, 'actions[0].text', /not a field/],
      [{ ...valid, actions: [{ type: 'teleport' }] }, 'actions[0].type', /not an action/],
      [{ ...valid, actions: 'send' }, 'actions', /array/],
      [{ ...valid, event: 'conversation.unanswered', event_options: { minutes: 'soon' }, conditions: { all: [] } }, 'event_options.minutes', /whole number/],
      [{ ...valid, conditions: 'price' }, 'conditions', /object/],
    ];
    for (const [payload, path, message] of cases) {
      const res = await rules('POST', tenant.session, '', payload);
      expect({ path, status: res.statusCode }).toEqual({ path, status: 400 });
      const body = res.json();
      expect({ path, code: body.code, at: body.details?.path, hint: body.hint }).toEqual({ path, code: 'automation_rule.invalid', at: path, hint: null });
      expect(body.message).toMatch(message);
    }
    // An unknown column is refused by the data API itself (PostgREST's answer).
    const unknown = await rules('POST', tenant.session, '', { ...valid, colour: 'red' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'PGRST204' });
    const [rule] = (await rules('POST', tenant.session, '', valid)).json();
    const badPatch = await rules('PATCH', tenant.session, `?id=eq.${rule.id}`, { event: 'deal.created' });
    expect(badPatch.statusCode).toBe(400);
    expect(badPatch.json().details).toEqual({ path: 'conditions.all[0].field' });
    expect((await rules('GET', tenant.session, '?select=event')).json()).toEqual([{ event: 'message.received' }]);
  });

  it("should serve a webhook action's secret masked, keep it when the mask is sent back, and refuse a mask it does not hold", async () => {
    const tenant = await createTestTenant(app);
    const secret = 'whsec-automation-secret-9876';
    const hook = { type: 'send_webhook', url: 'https://hooks.example.com/rules', secret };
    const [rule] = (await rules('POST', tenant.session, '', { ...valid, actions: [hook] })).json();
    expect(rule.actions).toEqual([{ ...hook, secret: '****9876' }]);
    expect(JSON.stringify((await rules('GET', tenant.session, `?id=eq.${rule.id}`)).json())).not.toContain(secret);
    const kept = await rules('PATCH', tenant.session, `?id=eq.${rule.id}`, { actions: [{ type: 'add_note', text: 'hooked' }, rule.actions[0]] });
    expect(kept.statusCode).toBe(200);
    const [stored] = await runtime.db.inTenant(tenant.ctx, (tx) =>
      tx.query<{ action_secrets: (string | null)[] }>(`SELECT action_secrets FROM automation_rules WHERE id = $1`, [rule.id]),
    );
    expect(stored.action_secrets[0]).toBeNull();
    expect(stored.action_secrets[1]).toMatch(/^v1:/);
    const forged = await rules('PATCH', tenant.session, `?id=eq.${rule.id}`, { actions: [{ ...hook, secret: '****0000' }] });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().details).toEqual({ path: 'actions[0].secret' });
  });

  it('should serve automation_runs read-only, to members of its organization only', async () => {
    const tenant = await createTestTenant(app);
    const other = await createTestTenant(app);
    const [rule] = (await rules('POST', tenant.session, '', valid)).json();
    const runs = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', headers: Record<string, string>, query = '', payload?: object) =>
      app.inject({ method, url: `/rest/v1/automation_runs${query}`, headers, ...(payload ? { payload } : {}) });
    const run = { rule_id: rule.id, event: 'message.received', event_id: randomUUID(), subject_type: 'message', subject_id: randomUUID(), status: 'succeeded' };
    for (const [method, query] of [
      ['POST', ''],
      ['PATCH', `?rule_id=eq.${rule.id}`],
      ['DELETE', `?rule_id=eq.${rule.id}`],
    ] as const) {
      const res = await runs(method, tenant.session, query, method === 'DELETE' ? undefined : run);
      expect({ method, status: res.statusCode }).toEqual({ method, status: 405 });
    }
    // As the rule engine will write it.
    await runtime.db.inTenant(tenant.ctx, (tx) =>
      tx.query(
        `INSERT INTO automation_runs (organization_id, rule_id, event, event_id, subject_type, subject_id, status, actions, depth, finished_at)
         VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, 0, now())`,
        [run.rule_id, run.event, run.event_id, run.subject_type, run.subject_id, run.status, JSON.stringify([{ type: 'send_message', status: 'succeeded' }])],
      ),
    );
    const agent = await memberHeaders(app, tenant, 'AGENT');
    const read = await runs('GET', agent, '?select=rule_id,status,skip_reason,actions,depth,automation_rules(name)');
    expect(read.json()).toEqual([
      {
        rule_id: rule.id,
        status: 'succeeded',
        skip_reason: null,
        actions: [{ type: 'send_message', status: 'succeeded' }],
        depth: 0,
        automation_rules: { name: valid.name },
      },
    ]);
    expect((await runs('GET', other.session)).json()).toEqual([]);
  });
});
