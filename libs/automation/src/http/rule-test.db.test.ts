import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, customerMessage, memberHeaders, startAutomationApp, type TestTenant } from '../testing/automation-test-app';

describe('POST /functions/v1/automation/rules/<id>/test (the dry run)', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startAutomationApp());
  });
  afterAll(() => close());

  const rest = (method: 'GET' | 'POST' | 'PATCH', tenant: TestTenant, path: string, payload?: object) =>
    app.inject({ method, url: `/rest/v1/${path}`, headers: { ...tenant.session, prefer: 'return=representation' }, ...(payload ? { payload } : {}) });
  const createRule = async (tenant: TestTenant, rule: object) => {
    const res = await rest('POST', tenant, 'automation_rules', rule);
    if (res.statusCode !== 201) throw new Error(`rule: ${res.body}`);
    return res.json()[0].id as string;
  };
  const dryRun = (headers: Record<string, string>, ruleId: string, payload: unknown) =>
    app.inject({ method: 'POST', url: `/functions/v1/automation/rules/${ruleId}/test`, headers, payload: payload as object });

  const priceRule = {
    name: 'VIP price questions',
    event: 'message.received',
    conditions: {
      all: [
        { field: 'message.content', operator: 'contains', value: 'price' },
        {
          any: [
            { field: 'contact.tags', operator: 'includes_any', value: ['vip'] },
            { field: 'contact.custom_fields.plan', operator: 'equals', value: 'gold' },
          ],
        },
        { field: 'conversation.status', operator: 'equals', value: 'OPEN' },
      ],
    },
    actions: [
      { type: 'send_message', text: 'Hi {{contact.first_name | there}}, a price list is on its way' },
      { type: 'add_contact_tags', tags: ['asked-price'] },
    ],
  };

  it('should report a match with each condition on the message, its conversation and contact as they are now, changing nothing', async () => {
    const tenant = await createTestTenant(app);
    const { messageId, contactId, conversationId } = await customerMessage(app, tenant, 'What is the PRICE of the blue one?');
    await rest('PATCH', tenant, `contacts?id=eq.${contactId}`, { first_name: 'Ada', tags: ['vip'] });
    const ruleId = await createRule(tenant, priceRule);
    const agent = await memberHeaders(app, tenant, 'AGENT');
    const res = await dryRun(agent, ruleId, { subject_id: messageId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      matched: true,
      conditions: [
        {
          path: 'conditions.all[0]',
          field: 'message.content',
          operator: 'contains',
          value: 'price',
          actual: 'What is the PRICE of the blue one?',
          matched: true,
        },
        { path: 'conditions.all[1].any[0]', field: 'contact.tags', operator: 'includes_any', value: ['vip'], actual: ['vip'], matched: true },
        { path: 'conditions.all[1].any[1]', field: 'contact.custom_fields.plan', operator: 'equals', value: 'gold', actual: null, matched: false },
        { path: 'conditions.all[2]', field: 'conversation.status', operator: 'equals', value: 'OPEN', actual: 'OPEN', matched: true },
      ],
      actions: [
        { type: 'send_message', would: `send "Hi Ada, a price list is on its way" into conversation ${conversationId} through its paced queue` },
        { type: 'add_contact_tags', would: `add the tags asked-price to contact ${contactId}` },
      ],
    });
    // Nothing was sent or tagged.
    expect((await rest('GET', tenant, `contacts?id=eq.${contactId}&select=tags`)).json()).toEqual([{ tags: ['vip'] }]);
    expect((await rest('GET', tenant, `messages?conversation_id=eq.${conversationId}&select=direction`)).json()).toEqual([{ direction: 'INBOUND' }]);
  });

  it('should report no match, and read the record as it is now rather than as it was', async () => {
    const tenant = await createTestTenant(app);
    const { messageId, contactId, conversationId } = await customerMessage(app, tenant, 'Do you ship to Alexandria?');
    const ruleId = await createRule(tenant, priceRule);
    const res = (await dryRun(tenant.session, ruleId, { subject_id: messageId })).json();
    expect(res.matched).toBe(false);
    expect(res.conditions.map((c: { matched: boolean }) => c.matched)).toEqual([false, false, false, true]);
    // Inbound contacts are named "Unknown Contact" until someone names them.
    expect(res.actions[0].would).toContain('"Hi Unknown Contact, a price list');
    // The contact gets the custom field afterwards: the same message now passes the group.
    await rest('PATCH', tenant, `contacts?id=eq.${contactId}`, { custom_fields: { plan: 'Gold' } });
    const after = (await dryRun(tenant.session, ruleId, { subject_id: messageId })).json();
    expect(after.conditions[2]).toMatchObject({ actual: 'Gold', matched: true });
    const contactRule = await createRule(tenant, {
      name: 'Gold contacts',
      event: 'contact.updated',
      conditions: { all: [{ field: 'contact.custom_fields.plan', operator: 'in', value: ['gold', 'platinum'] }] },
      actions: [{ type: 'add_note', text: 'Gold: {{contact.custom_fields.plan}}' }],
    });
    const onContact = (await dryRun(tenant.session, contactRule, { subject_id: contactId })).json();
    expect(onContact).toMatchObject({ matched: true, actions: [{ type: 'add_note', would: `add the note "Gold: Gold" to contact ${contactId}` }] });
    // A conversation rule reads the conversation: its event is about one, not about a message.
    const conversationRule = await createRule(tenant, {
      name: 'Unassigned',
      event: 'conversation.created',
      conditions: { all: [{ field: 'conversation.assignee_id', operator: 'is_empty' }] },
      actions: [{ type: 'assign_conversation', user_id: 'round_robin' }],
    });
    expect((await dryRun(tenant.session, conversationRule, { subject_id: conversationId })).json().matched).toBe(true);
    expect((await dryRun(tenant.session, conversationRule, { subject_id: messageId })).statusCode).toBe(404);
  });

  it('should evaluate a deal rule on the deal and its contact', async () => {
    const tenant = await createTestTenant(app);
    const [contact] = (await rest('POST', tenant, 'contacts', { first_name: 'Omar', tags: ['b2b'] })).json();
    const [deal] = (await rest('POST', tenant, 'deals', { title: 'Fleet', value: 5000, contact_id: contact.id })).json();
    const ruleId = await createRule(tenant, {
      name: 'Big b2b deals',
      event: 'deal.stage.changed',
      conditions: {
        all: [
          { field: 'deal.value', operator: 'greater_than', value: 1000 },
          { field: 'contact.tags', operator: 'contains', value: 'B2B' },
        ],
      },
      actions: [{ type: 'set_deal_stage', stage: 'won' }],
    });
    const res = (await dryRun(tenant.session, ruleId, { subject_id: deal.id })).json();
    expect(res).toMatchObject({ matched: true, actions: [{ type: 'set_deal_stage', would: `move deal ${deal.id} to stage won` }] });
    expect(res.conditions[0]).toMatchObject({ actual: 5000, matched: true });
  });

  it("should answer 404 for another organization's rule or subject, and for an unknown subject", async () => {
    const tenant = await createTestTenant(app);
    const other = await createTestTenant(app);
    const { messageId } = await customerMessage(app, tenant, 'price?');
    const theirs = await customerMessage(app, other, 'price?');
    const ruleId = await createRule(tenant, priceRule);
    const otherRule = await createRule(other, priceRule);
    const foreignRule = await dryRun(tenant.session, otherRule, { subject_id: messageId });
    expect(foreignRule.statusCode).toBe(404);
    expect(foreignRule.json()).toMatchObject({ code: 'automation_rule.not_found' });
    const foreignSubject = await dryRun(tenant.session, ruleId, { subject_id: theirs.messageId });
    expect(foreignSubject.statusCode).toBe(404);
    expect(foreignSubject.json()).toMatchObject({ code: 'message.not_found' });
    expect((await dryRun(tenant.session, ruleId, { subject_id: randomUUID() })).statusCode).toBe(404);
    expect((await dryRun(tenant.session, randomUUID(), { subject_id: messageId })).statusCode).toBe(404);
  });

  it('should answer 400 for a bad subject_id or rule id, and 401 without credentials', async () => {
    const tenant = await createTestTenant(app);
    const ruleId = await createRule(tenant, priceRule);
    for (const payload of [{}, { subject_id: 'not-a-uuid' }, { subject_id: 42 }, { subject_id: null }]) {
      const res = await dryRun(tenant.session, ruleId, payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect(res.json().error).toMatch(/subject_id/);
    }
    const badRule = await dryRun(tenant.session, 'rule-one', { subject_id: randomUUID() });
    expect(badRule.statusCode).toBe(400);
    expect(badRule.json()).toMatchObject({ code: 'automation_rule.invalid_id' });
    expect((await dryRun({}, ruleId, { subject_id: randomUUID() })).statusCode).toBe(401);
  });
});
