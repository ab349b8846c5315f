import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { listDevMailbox, OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { InboundProcessor } from '@engage/messaging';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

// Plan limits on every path that creates a contact, a conversation or a member (docs/plan-limits.md).
describe('plan limits over HTTP', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp());
    await runtime.db.asSystem((tx) =>
      tx.query(`INSERT INTO subscription_plans (id, name, price, currency, interval, limit_contacts, limit_conversations_per_month, limit_team_members)
                VALUES ('tiny', 'Tiny', 1, 'USD', 'month', 2, 1, 2)`),
    );
  });
  afterAll(() => close());

  async function subscribed(status = 'active', periodEnd = "now() + interval '20 days'"): Promise<TestTenant> {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'k-123');
    await runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO subscriptions (organization_id, plan_id, storefront_store_id, status, current_period_start, current_period_end)
                VALUES ($1, 'tiny', $2, $3, now() - interval '10 days', ${periodEnd})`,
        [tenant.ctx.organizationId, randomUUID(), status],
      ),
    );
    return tenant;
  }
  const json = { 'content-type': 'application/json' };
  const restPost = (t: TestTenant, name: string) =>
    app.inject({ method: 'POST', url: '/rest/v1/contacts', headers: { ...t.session, ...json }, payload: { first_name: name } });
  const importCsv = (t: TestTenant, csv: string) =>
    app.inject({ method: 'POST', url: '/functions/v1/contacts/import', headers: { ...t.session, 'content-type': 'text/csv' }, payload: csv });
  const proxyPost = (t: TestTenant, name: string) =>
    app.inject({ method: 'POST', url: '/functions/v1/rest-api-proxy/contacts', headers: { ...t.key, ...json }, payload: { first_name: name } });
  const send = (t: TestTenant, to: string) =>
    app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to, message: 'hello', organizationId: t.ctx.organizationId, contactName: 'S' },
    });
  const usage = async (t: TestTenant) => (await runtime.db.inTenant(t.ctx, (tx) => tx.query('SELECT * FROM plan_usage_of(app_org_id())')))[0];
  const contactsLimit = { limit: 'contacts', value: 2, usage: 2 };

  it('should refuse a contact past the limit on /rest/v1 and the record proxy with each family’s 402 body', async () => {
    const t = await subscribed();
    expect((await restPost(t, 'a')).statusCode).toBe(201);
    expect((await proxyPost(t, 'b')).statusCode).toBe(201);
    const rest = await restPost(t, 'c');
    expect(rest.statusCode).toBe(402);
    expect(rest.json()).toMatchObject({ code: 'plan_limit_exceeded', details: contactsLimit, hint: expect.any(String) });
    expect(rest.json().message).toMatch(/2 contacts/);
    const proxy = await proxyPost(t, 'd');
    expect(proxy.statusCode).toBe(402);
    expect(proxy.json()).toMatchObject({
      error: expect.stringMatching(/contacts/),
      code: 'plan_limit_exceeded',
      details: contactsLimit,
      hint: expect.any(String),
    });
    const kept = await app.inject({ method: 'GET', url: '/rest/v1/contacts?select=first_name&order=first_name', headers: t.session });
    expect(kept.json()).toEqual([{ first_name: 'a' }, { first_name: 'b' }]);
  });

  it("should refuse chat-lite-send's new contact past the contacts limit, and a new conversation past the conversations limit", async () => {
    const t = await subscribed();
    expect((await send(t, '201001110001')).statusCode).toBe(200);
    // The second contact fits the contacts limit (2) but opens a second conversation (limit 1).
    const second = await send(t, '201001110002');
    expect(second.statusCode).toBe(402);
    expect(second.json()).toEqual({
      error: expect.any(String),
      code: 'plan_limit_exceeded',
      hint: expect.any(String),
      details: { limit: 'conversations_per_month', value: 1, usage: 1 },
    });
    // Its transaction was undone: no second contact was kept either.
    expect((await usage(t)).contacts_used).toBe(1);
    // The existing conversation is reused, so sending to the first contact goes on.
    expect((await send(t, '201001110001')).statusCode).toBe(200);
    expect((await restPost(t, 'x')).statusCode).toBe(201);
    const third = await send(t, '201001110003');
    expect(third.statusCode).toBe(402);
    expect(third.json().details).toEqual(contactsLimit);
  });

  it('should import a CSV row by row up to the limit, reporting each refused row by its line', async () => {
    const t = await subscribed();
    const csv = 'first_name,phone\nA,+201001230001\nB,+201001230002\nC,+201001230003\nD,+201001230004\n';
    const res = await importCsv(t, csv);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'completed', created: 2, failed: 2 });
    expect(res.json().errors).toEqual([
      { line: 4, code: 'plan_limit_exceeded', error: expect.stringMatching(/contacts/) },
      { line: 5, code: 'plan_limit_exceeded', error: expect.stringMatching(/contacts/) },
    ]);
  });

  it('should keep an inbound customer message past the limits and flag the organization over its limit', async () => {
    const t = await subscribed();
    expect((await restPost(t, 'a')).statusCode).toBe(201);
    expect((await restPost(t, 'b')).statusCode).toBe(201);
    const channel = { kind: 'chat_app', name: 'Line' };
    const created = (await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload: channel })).json();
    const inbound = await app.inject({
      method: 'POST',
      url: `/functions/v1/chat-lite-webhook/${created.channel_account.id}`,
      headers: { 'x-channel-token': created.inbound_token },
      payload: { type: 'message', id: `in-${randomUUID()}`, from: '201009998877', text: 'is anyone there?' },
    });
    expect(inbound.statusCode).toBe(200);
    const processor = new InboundProcessor(runtime.db, app.get(ContactService), undefined, 1);
    while ((await processor.processDue(100)) > 0);
    const messages = await app.inject({ method: 'GET', url: '/rest/v1/messages?select=content,direction', headers: t.session });
    expect(messages.json()).toEqual([{ content: 'is anyone there?', direction: 'INBOUND' }]);
    expect(await usage(t)).toMatchObject({ contacts_used: 3, contacts_limit: 2, conversations_used: 1, over_limit: true });
    expect((await usage(t)).over_limit_at).not.toBeNull();
  });

  it('should refuse an invitation when the team is full, and an accepted invitation past the team limit', async () => {
    const t = await subscribed();
    const invite = (email: string) => app.inject({ method: 'POST', url: '/functions/v1/invitations', headers: t.session, payload: { email, role: 'AGENT' } });
    const emails = [`a.${randomUUID()}@example.com`, `b.${randomUUID()}@example.com`];
    for (const email of emails) expect((await invite(email)).statusCode).toBe(201);
    const tokenOf = async (email: string) => {
      const mail = (await listDevMailbox(runtime.config.DATA_DIR)).find((m) => m.to === email);
      return new URL(mail!.text.match(/https?:\/\/\S+\/functions\/v1\/invitations\/accept\?token=\S+/)![0]).searchParams.get('token');
    };
    const accept = async (email: string) =>
      app.inject({ method: 'POST', url: '/functions/v1/invitations/accept', payload: { token: await tokenOf(email), password: 'member password 1' } });
    expect((await accept(emails[0])).statusCode).toBe(200);
    const refused = await accept(emails[1]);
    expect(refused.statusCode).toBe(402);
    expect(refused.json().details).toEqual({ limit: 'team_members', value: 2, usage: 2 });
    const third = await invite(`c.${randomUUID()}@example.com`);
    expect(third.statusCode).toBe(402);
    expect(third.json()).toMatchObject({ code: 'plan_limit_exceeded', details: { limit: 'team_members', value: 2, usage: 2 } });
  });

  it('should leave an organization without a subscription unlimited on every path', async () => {
    const t = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'appgain_api_key', 'k-123');
    for (let i = 0; i < 4; i++) expect((await restPost(t, `r${i}`)).statusCode).toBe(201);
    for (let i = 0; i < 3; i++) expect((await send(t, `20100444000${i}`)).statusCode).toBe(200);
    const csv = `first_name\n${Array.from({ length: 20 }, (_, i) => `n${i}`).join('\n')}\n`;
    expect((await importCsv(t, csv)).json()).toMatchObject({ created: 20, failed: 0 });
    expect(await usage(t)).toMatchObject({ contacts_used: 27, contacts_limit: null, conversations_used: 3, conversations_limit: null, over_limit: false });
  });

  it('should make an organization read-only once its canceled subscription has ended, reads still answering', async () => {
    const t = await subscribed('canceled', "now() - interval '1 day'");
    const refused = await restPost(t, 'late');
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toMatchObject({ code: 'subscription_inactive' });
    const proxy = await proxyPost(t, 'late');
    expect(proxy.statusCode).toBe(402);
    expect(proxy.json()).toMatchObject({ error: expect.stringMatching(/read-only/), code: 'subscription_inactive' });
    expect((await app.inject({ method: 'GET', url: '/rest/v1/contacts', headers: t.session })).statusCode).toBe(200);
    // Past due but still inside its period: writes go on.
    const grace = await subscribed('past_due');
    expect((await restPost(grace, 'ok')).statusCode).toBe(201);
  });
});
