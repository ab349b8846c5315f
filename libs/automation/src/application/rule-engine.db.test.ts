import { createHmac, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONTACT_UPDATED } from '@engage/crm';
import { OrganizationService } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver } from '@engage/platform/testing';
import { customerMessage, createTestTenant, memberHeaders, startRuleEngineApp, type TestTenant } from '../testing/automation-test-app';
import { RuleEngine } from './rule-engine';

type Run = {
  id: string;
  rule_id: string;
  event: string;
  event_id: string;
  subject_type: string;
  subject_id: string;
  status: string;
  skip_reason: string | null;
  actions: { type: string; status: string; error?: string; result?: Record<string, unknown> }[];
  depth: number;
  started_at: string;
  finished_at: string | null;
};

// Pacing off, so a rule's message goes at once to the sandbox chat-app provider.
const NO_PACING = { quiet_hours: null, gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_recipient_min_gap_seconds: 0 };
const SECRET = 'rule-webhook-secret-0123456789';

describe('the rule engine', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  const cert = createSelfSignedCert();

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, (request) => ({ status: request.path.startsWith('/fail') ? 500 : 200, body: 'x' }));
    ({ app, runtime, close } = await startRuleEngineApp(cert.certPath));
  });
  afterAll(async () => {
    await close();
    await receiver.close();
  });

  const rest = (method: 'GET' | 'POST' | 'PATCH', tenant: TestTenant, path: string, payload?: object) =>
    app.inject({ method, url: `/rest/v1/${path}`, headers: { ...tenant.session, prefer: 'return=representation' }, ...(payload ? { payload } : {}) });
  const read = async <T = Record<string, unknown>>(tenant: TestTenant, path: string) => {
    const res = await rest('GET', tenant, path);
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.body}`);
    return res.json() as T[];
  };
  const createRule = async (tenant: TestTenant, rule: object) => {
    const res = await rest('POST', tenant, 'automation_rules', rule);
    if (res.statusCode !== 201) throw new Error(`rule: ${res.body}`);
    return res.json()[0].id as string;
  };
  const outboxDrained = async () =>
    (await runtime.db.asSystem((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`)))[0].n === 0;
  // The tenant's runs once every event is consumed and no run is still running.
  const settledRuns = async (tenant: TestTenant, atLeast = 1, ms = 20_000): Promise<Run[]> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const runs = await read<Run>(tenant, 'automation_runs?order=started_at.asc,id.asc');
      if (
        (runs.length >= atLeast && runs.every((run) => run.status !== 'running' && run.status !== 'delivering') && (await outboxDrained())) ||
        Date.now() > deadline
      ) {
        return runs;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const receivedOn = (path: string) => receiver.received.filter((request) => request.path === path);

  it('should run each built action on a matching message, once, and log the run with each action’s outcome', async () => {
    const tenant = await createTestTenant(app);
    // The chat-app provider's key (the sandbox provider takes any).
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'rule-test-key');
    const owner = { id: tenant.ctx.userId as string };
    const ruleId = await createRule(tenant, {
      name: 'Price questions',
      event: 'message.received',
      conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'price' }] },
      actions: [
        { type: 'send_message', text: 'Hi {{contact.custom_fields.nick | there}}, our prices: {{message.content}}' },
        { type: 'add_contact_tags', tags: ['asked-price', 'cold'] },
        { type: 'remove_contact_tags', tags: ['cold'] },
        { type: 'set_contact_field', field: 'custom_fields.interest', value: 'pricing' },
        { type: 'set_contact_field', field: 'source', value: 'rule' },
        { type: 'add_note', text: 'Asked: {{message.content}}' },
        { type: 'set_conversation_status', status: 'PENDING' },
        { type: 'assign_conversation', user_id: owner.id },
      ],
    });
    // Another rule of the same event whose conditions do not hold: no run.
    await createRule(tenant, {
      name: 'Refunds',
      event: 'message.received',
      conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'refund' }] },
      actions: [{ type: 'add_contact_tags', tags: ['refund'] }],
    });
    const { messageId, conversationId, contactId } = await customerMessage(app, tenant, 'What is the PRICE?', undefined, NO_PACING);

    const runs = await settledRuns(tenant);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run).toMatchObject({
      rule_id: ruleId,
      event: 'message.received',
      subject_type: 'message',
      subject_id: messageId,
      status: 'succeeded',
      skip_reason: null,
      depth: 0,
    });
    expect(run.finished_at).not.toBeNull();
    expect(run.actions.map((action) => [action.type, action.status])).toEqual([
      ['send_message', 'succeeded'],
      ['add_contact_tags', 'succeeded'],
      ['remove_contact_tags', 'succeeded'],
      ['set_contact_field', 'succeeded'],
      ['set_contact_field', 'succeeded'],
      ['add_note', 'succeeded'],
      ['set_conversation_status', 'succeeded'],
      ['assign_conversation', 'succeeded'],
    ]);
    expect(run.actions[0].result).toMatchObject({ status: 'sent' });

    // Each effect, read back through /rest/v1.
    const sent = await read(tenant, `messages?conversation_id=eq.${conversationId}&direction=eq.OUTBOUND&select=content,origin,origin_id,status`);
    expect(sent).toEqual([{ content: 'Hi there, our prices: What is the PRICE?', origin: 'rule', origin_id: ruleId, status: 'SENT' }]);
    expect(await read(tenant, `contacts?id=eq.${contactId}&select=tags,custom_fields,source`)).toEqual([
      { tags: ['asked-price'], custom_fields: { interest: 'pricing' }, source: 'rule' },
    ]);
    expect(await read(tenant, `notes?contact_id=eq.${contactId}&select=body`)).toEqual([{ body: 'Asked: What is the PRICE?' }]);
    expect(await read(tenant, `conversations?id=eq.${conversationId}&select=status,assignee_id`)).toEqual([{ status: 'PENDING', assignee_id: owner.id }]);

    // The events the actions caused carry the run as their cause, one level deeper.
    const caused = await runtime.db.asSystem((tx) =>
      tx.query<{ type: string; cause: unknown }>(`SELECT type, cause FROM outbox WHERE organization_id = $1 AND cause IS NOT NULL ORDER BY seq`, [
        tenant.ctx.organizationId,
      ]),
    );
    expect(new Set(caused.map((event) => event.type))).toEqual(
      new Set(['contact.updated', 'note.created', 'conversation.status.changed', 'conversation.assigned']),
    );
    for (const event of caused) expect(event.cause).toEqual({ rule_id: ruleId, run_id: run.id, depth: 1 });
  });

  it('should log a failing webhook (a receiver answering 500, retried) and run the actions after it: partially_failed', async () => {
    const tenant = await createTestTenant(app);
    const failPath = `/fail/${randomUUID()}`;
    const okPath = `/ok/${randomUUID()}`;
    const ruleId = await createRule(tenant, {
      name: 'New contacts',
      event: 'contact.created',
      actions: [
        { type: 'send_webhook', url: `https://127.0.0.1:${receiver.port}${failPath}` },
        { type: 'add_contact_tags', tags: ['welcomed'] },
        { type: 'send_webhook', url: `https://127.0.0.1:${receiver.port}${okPath}`, secret: SECRET },
      ],
    });
    const created = await rest('POST', tenant, 'contacts', { first_name: 'Grace', phones: ['+201001234567'] });
    expect(created.statusCode).toBe(201);
    const contactId = created.json()[0].id as string;

    const [run] = await settledRuns(tenant);
    expect(run).toMatchObject({ rule_id: ruleId, event: 'contact.created', subject_type: 'contact', subject_id: contactId, status: 'partially_failed' });
    const [failed, tagged, posted] = run.actions;
    expect(failed).toEqual({ type: 'send_webhook', status: 'failed', error: 'the receiver answered HTTP 500 (3 attempts)' });
    expect(tagged).toMatchObject({ type: 'add_contact_tags', status: 'succeeded' });
    expect(posted).toEqual({ type: 'send_webhook', status: 'succeeded', result: { status_code: 200, attempts: 1 } });
    expect(receivedOn(failPath)).toHaveLength(3);
    expect(await read(tenant, `contacts?id=eq.${contactId}&select=tags`)).toEqual([{ tags: ['welcomed'] }]);

    // The signed delivery: HMAC-SHA256 of the raw body with the secret, and what the rule read.
    const [delivery] = receivedOn(okPath);
    expect(delivery.headers['x-signature-256']).toBe(`sha256=${createHmac('sha256', SECRET).update(delivery.body).digest('hex')}`);
    expect(delivery.headers['x-automation-run']).toBe(run.id);
    const body = JSON.parse(delivery.body);
    expect(body).toMatchObject({
      type: 'automation.rule',
      rule: { id: ruleId, name: 'New contacts' },
      run_id: run.id,
      event: { id: run.event_id, type: 'contact.created' },
      subject: { type: 'contact', id: contactId },
      records: { contact: { id: contactId, first_name: 'Grace' } },
    });
    expect(receivedOn(failPath)[0].headers['x-signature-256']).toBeUndefined();
  });

  it('should stop two rules that trigger each other with the loop guard, never running a rule on its own action’s event', async () => {
    const tenant = await createTestTenant(app);
    const { conversationId } = await customerMessage(app, tenant, 'hello');
    const status = (value: string) => ({ all: [{ field: 'conversation.status', operator: 'equals', value }] });
    const reopen = await createRule(tenant, {
      name: 'Reopen pending',
      event: 'conversation.status.changed',
      position: 0,
      conditions: status('PENDING'),
      actions: [{ type: 'set_conversation_status', status: 'OPEN' }],
    });
    const park = await createRule(tenant, {
      name: 'Park open',
      event: 'conversation.status.changed',
      position: 1,
      conditions: status('OPEN'),
      actions: [{ type: 'set_conversation_status', status: 'PENDING' }],
    });
    const changed = await app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/conversations/${conversationId}/status`,
      headers: tenant.session,
      payload: { status: 'PENDING' },
    });
    expect(changed.statusCode).toBe(200);

    const runs = await settledRuns(tenant, 5);
    // The agent's change (depth 0) runs both; each caused event runs only the other rule, one level
    // deeper, until a run at depth 3 is skipped.
    expect(runs.map((run) => [run.rule_id === reopen ? 'reopen' : 'park', run.depth, run.status, run.skip_reason])).toEqual([
      ['reopen', 0, 'succeeded', null],
      ['park', 0, 'succeeded', null],
      ['reopen', 1, 'succeeded', null],
      ['park', 2, 'succeeded', null],
      ['reopen', 3, 'skipped', 'loop_guard'],
    ]);
    expect(runs[4].actions).toEqual([]);
    const causes = await runtime.db.asSystem((tx) =>
      tx.query<{ id: string; cause: { rule_id: string } | null }>(`SELECT id, cause FROM outbox WHERE organization_id = $1`, [tenant.ctx.organizationId]),
    );
    const causeOf = new Map(causes.map((event) => [event.id, event.cause]));
    for (const run of runs) expect(causeOf.get(run.event_id)?.rule_id).not.toBe(run.rule_id);
    // Settled: nothing runs any more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await settledRuns(tenant)).toHaveLength(5);
    expect(park).toBeDefined();
  });

  it('should run deal rules on the deal and its contact: a note on the deal, tags on its contact, nothing for a deal without one', async () => {
    const tenant = await createTestTenant(app);
    const contact = (await rest('POST', tenant, 'contacts', { first_name: 'Margaret', phones: ['+201004445556'] })).json()[0];
    const ruleId = await createRule(tenant, {
      name: 'Big deals',
      event: 'deal.created',
      conditions: { all: [{ field: 'deal.value', operator: 'greater_than', value: 1000 }] },
      actions: [
        { type: 'add_note', text: 'Big deal: {{deal.title}} ({{deal.value}} {{deal.currency | EGP}})' },
        { type: 'add_contact_tags', tags: ['big-deal'] },
      ],
    });
    const [withContact] = (await rest('POST', tenant, 'deals', { title: 'Fleet', value: 5000, contact_id: contact.id })).json();
    const [alone] = (await rest('POST', tenant, 'deals', { title: 'Solo', value: 9000 })).json();
    await rest('POST', tenant, 'deals', { title: 'Small', value: 10, contact_id: contact.id });

    const runs = await settledRuns(tenant, 2);
    expect(runs.map((run) => [run.subject_id, run.status, run.actions.map((action) => action.status)])).toEqual([
      [withContact.id, 'succeeded', ['succeeded', 'succeeded']],
      [alone.id, 'succeeded', ['succeeded', 'skipped']],
    ]);
    expect(runs.every((run) => run.rule_id === ruleId && run.subject_type === 'deal')).toBe(true);
    expect(runs[1].actions[1]).toEqual({ type: 'add_contact_tags', status: 'skipped', error: 'there is no contact to act on' });
    const notes = await read<{ deal_id: string; body: string }>(tenant, 'notes?select=deal_id,body&order=body');
    expect(notes).toEqual([
      { deal_id: withContact.id, body: `Big deal: Fleet (5000 ${withContact.currency ?? 'EGP'})` },
      { deal_id: alone.id, body: `Big deal: Solo (9000 ${alone.currency ?? 'EGP'})` },
    ]);
    expect(await read(tenant, `contacts?id=eq.${contact.id}&select=tags`)).toEqual([{ tags: ['big-deal'] }]);
  });

  it('should move a deal, give it an owner and create a task on it and its contact, through the CRM, read back through /rest/v1', async () => {
    const tenant = await createTestTenant(app);
    const owner = tenant.ctx.userId as string;
    const contact = (await rest('POST', tenant, 'contacts', { first_name: 'Ada', phones: ['+201007778889'] })).json()[0];
    const ruleId = await createRule(tenant, {
      name: 'Qualify fleets',
      event: 'deal.created',
      actions: [
        { type: 'set_deal_stage', stage: 'Proposal' },
        { type: 'assign_deal_owner', user_id: owner },
        { type: 'create_task', title: 'Call {{contact.first_name | them}} about {{deal.title}}', due_in_minutes: 90, assignee_id: owner },
        { type: 'set_deal_stage', stage: 'Signed' },
      ],
    });
    const before = Date.now();
    const [deal] = (await rest('POST', tenant, 'deals', { title: 'Fleet', value: 100, contact_id: contact.id })).json();

    const [run] = await settledRuns(tenant);
    expect(run).toMatchObject({ rule_id: ruleId, subject_id: deal.id, status: 'partially_failed' });
    const [staged, owned, tasked, refused] = run.actions;
    expect(staged).toEqual({ type: 'set_deal_stage', status: 'succeeded', result: { stage: 'PROPOSAL', changed: true } });
    expect(owned).toEqual({ type: 'assign_deal_owner', status: 'succeeded', result: { owner_id: owner, changed: true } });
    expect(tasked).toMatchObject({ type: 'create_task', status: 'succeeded', result: { task_id: expect.any(String) } });
    expect(refused).toMatchObject({ type: 'set_deal_stage', status: 'failed', error: expect.stringContaining('unknown stage "Signed"; valid stages: LEAD') });

    expect(await read(tenant, `deals?id=eq.${deal.id}&select=stage,probability,owner_id`)).toEqual([{ stage: 'PROPOSAL', probability: 50, owner_id: owner }]);
    const tasks = await read<{ id: string; due_at: string }>(tenant, `tasks?deal_id=eq.${deal.id}&select=id,title,contact_id,assignee_id,due_at,created_by`);
    expect(tasks).toMatchObject([{ id: tasked.result?.task_id, title: 'Call Ada about Fleet', contact_id: contact.id, assignee_id: owner, created_by: null }]);
    const due = Date.parse(tasks[0].due_at) - before;
    expect(due).toBeGreaterThanOrEqual(90 * 60_000 - 1000);
    expect(due).toBeLessThan(90 * 60_000 + 60_000);

    const caused = await runtime.db.asSystem((tx) =>
      tx.query<{ type: string; cause: unknown }>(`SELECT type, cause FROM outbox WHERE organization_id = $1 AND cause IS NOT NULL ORDER BY seq`, [
        tenant.ctx.organizationId,
      ]),
    );
    expect(new Set(caused.map((event) => event.type))).toEqual(new Set(['deal.updated', 'deal.stage.changed', 'deal.assigned', 'task.created']));
    for (const event of caused) expect(event.cause).toEqual({ rule_id: ruleId, run_id: run.id, depth: 1 });
  });

  it('should run a rule once per event when the event is delivered twice and handled by two consumers at once', async () => {
    const tenant = await createTestTenant(app);
    const created = await rest('POST', tenant, 'contacts', { first_name: 'Linus', phones: ['+201001112223'] });
    const contact = created.json()[0];
    const path = `/once/${randomUUID()}`;
    const ruleId = await createRule(tenant, {
      name: 'Updated contacts',
      event: 'contact.updated',
      actions: [
        { type: 'add_note', text: 'Updated {{contact.first_name}}' },
        { type: 'send_webhook', url: `https://127.0.0.1:${receiver.port}${path}` },
      ],
    });
    // An event of the CRM's contract for the real contact, handed to the engine as two workers and
    // a redelivery would: four deliveries at once, then one more.
    const event = CONTACT_UPDATED.create({ organizationId: tenant.ctx.organizationId, aggregateId: contact.id, payload: { contact, actor_id: null } });
    const engine = app.get(RuleEngine);
    await Promise.all([engine.handle(event), engine.handle(event), engine.handle(event), engine.handle(event)]);
    await engine.handle(event);

    const runs = (await settledRuns(tenant)).filter((run) => run.event_id === event.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ rule_id: ruleId, status: 'succeeded' });
    expect(await read(tenant, `notes?contact_id=eq.${contact.id}&select=body`)).toEqual([{ body: 'Updated Linus' }]);
    expect(receivedOn(path)).toHaveLength(1);
  });

  it('should run a batch of events of two organizations, each on its own rules, in order', async () => {
    const [first, second] = [await createTestTenant(app), await createTestTenant(app)];
    const contactOf = async (tenant: TestTenant, name: string) => (await rest('POST', tenant, 'contacts', { first_name: name })).json()[0];
    const noteRule = (tenant: TestTenant, text: string) =>
      createRule(tenant, { name: `Note ${text}`, event: 'contact.updated', actions: [{ type: 'add_note', text: `${text} {{contact.first_name}}` }] });
    await noteRule(first, 'first');
    await noteRule(second, 'second');
    const [ada, alan, bob] = [await contactOf(first, 'Ada'), await contactOf(first, 'Alan'), await contactOf(second, 'Bob')];
    const updated = (tenant: TestTenant, contact: { id: string }) =>
      CONTACT_UPDATED.create({ organizationId: tenant.ctx.organizationId, aggregateId: contact.id, payload: { contact, actor_id: null } });

    await app.get(RuleEngine).handleAll([updated(first, ada), updated(second, bob), updated(first, alan)]);

    const notes = async (tenant: TestTenant, contact: { id: string }) => read(tenant, `notes?contact_id=eq.${contact.id}&select=body`);
    expect(await notes(first, ada)).toEqual([{ body: 'first Ada' }]);
    expect(await notes(first, alan)).toEqual([{ body: 'first Alan' }]);
    expect(await notes(second, bob)).toEqual([{ body: 'second Bob' }]);
    const runs = await settledRuns(first, 2);
    expect(runs.filter((run) => run.event === 'contact.updated').map((run) => run.subject_id)).toEqual([ada.id, alan.id]);
  });

  it('should assign conversations round robin among the online members, in turn', async () => {
    const tenant = await createTestTenant(app);
    const agents = [await memberHeaders(app, tenant, 'AGENT'), await memberHeaders(app, tenant, 'ADMIN')];
    for (const headers of agents) {
      const online = await app.inject({ method: 'POST', url: '/functions/v1/presence', headers, payload: { online: true } });
      expect(online.statusCode).toBeLessThan(300);
    }
    const online = (await read<{ id: string }>(tenant, 'profiles?select=id&is_online=eq.true')).map((profile) => profile.id).sort();
    expect(online).toHaveLength(2);
    await createRule(tenant, { name: 'Share', event: 'conversation.created', actions: [{ type: 'assign_conversation', user_id: 'round_robin' }] });
    const conversations: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      conversations.push((await customerMessage(app, tenant, text)).conversationId);
      await settledRuns(tenant, conversations.length);
    }
    const assignees = [];
    for (const id of conversations)
      assignees.push((await read<{ assignee_id: string }>(tenant, `conversations?id=eq.${id}&select=assignee_id`))[0].assignee_id);
    expect(assignees).toEqual([online[0], online[1], online[0]]);
  });
  it('should give deals owners round robin among the online members, in turn', async () => {
    const tenant = await createTestTenant(app);
    for (const headers of [await memberHeaders(app, tenant, 'AGENT'), await memberHeaders(app, tenant, 'ADMIN')]) {
      expect((await app.inject({ method: 'POST', url: '/functions/v1/presence', headers, payload: { online: true } })).statusCode).toBeLessThan(300);
    }
    const online = (await read<{ id: string }>(tenant, 'profiles?select=id&is_online=eq.true')).map((profile) => profile.id).sort();
    expect(online).toHaveLength(2);
    await createRule(tenant, { name: 'Share deals', event: 'deal.created', actions: [{ type: 'assign_deal_owner', user_id: 'round_robin' }] });
    const deals: string[] = [];
    for (const title of ['one', 'two', 'three']) {
      deals.push((await rest('POST', tenant, 'deals', { title })).json()[0].id);
      await settledRuns(tenant, deals.length);
    }
    const owners = [];
    for (const id of deals) owners.push((await read<{ owner_id: string }>(tenant, `deals?id=eq.${id}&select=owner_id`))[0].owner_id);
    expect(owners).toEqual([online[0], online[1], online[0]]);
  });
});
