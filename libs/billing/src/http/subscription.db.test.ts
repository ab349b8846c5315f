import { Database } from '@engage/platform';
import { type BillingApp, createTestTenant, event, memberHeaders, postSigned, startBillingApp, type TestTenant } from '../testing/billing-test-app';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('subscription view and the billing tables through /rest/v1', () => {
  let t: BillingApp;
  beforeAll(async () => {
    t = await startBillingApp();
  });
  afterAll(() => t.close());

  const view = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/functions/v1/subscription', headers });
  const rest = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url: `/rest/v1/${url}`, headers });

  // Contacts, and conversations opened before and inside the current period.
  async function usage(tenant: TestTenant, contacts: number, conversations: { at: Date }[]) {
    await t.app.get(Database).inTenant(tenant.ctx, async (tx) => {
      const ids = await tx.query<{ id: string }>(
        `INSERT INTO contacts (organization_id, first_name) SELECT app_org_id(), 'C' || n FROM generate_series(1, $1) n RETURNING id`,
        [contacts],
      );
      const [account] = await tx.query<{ id: string }>(
        `INSERT INTO channel_accounts (organization_id, kind, name) VALUES (app_org_id(), 'email', 'Mail') RETURNING id`,
      );
      const insert = `INSERT INTO conversations (organization_id, contact_id, channel_account_id, status, created_at)
                      VALUES (app_org_id(), $1, $2, 'RESOLVED', $3)`;
      for (const [i, conversation] of conversations.entries()) await tx.query(insert, [ids[i % ids.length].id, account.id, conversation.at]);
    });
  }

  it('answers plan null and status None for an organization without a subscription, with usage and no limits', async () => {
    const tenant = await createTestTenant(t.app);
    await usage(tenant, 2, [{ at: new Date() }]);
    const response = await view(tenant.session);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      plan: null,
      status: 'None',
      trial_days_remaining: null,
      next_billing_date: null,
      current_period_end: null,
      cancel_at_period_end: false,
      usage: { contacts: { used: 2, limit: null }, conversations: { used: 1, limit: null }, team_members: { used: 1, limit: null } },
      over_limit: false,
    });
  });

  it('shows a trial: its days remaining, next billing at its end, conversations of the current period only, and over_limit', async () => {
    const tenant = await createTestTenant(t.app);
    const now = Date.now();
    const periodStart = new Date(now - 3 * DAY_MS);
    const trialEnd = new Date(now + 4.5 * DAY_MS);
    // Three members before the subscription arrives (no limit then): the free plan's 2 are exceeded.
    await memberHeaders(t.app, tenant, 'AGENT');
    await memberHeaders(t.app, tenant, 'AGENT');
    await postSigned(
      t.app,
      event(tenant.ctx.organizationId, {
        plan_id: 'free',
        status: 'trialing',
        current_period_start: periodStart.toISOString(),
        current_period_end: trialEnd.toISOString(),
        trial_end: trialEnd.toISOString(),
      }),
    );
    await usage(tenant, 3, [{ at: new Date(now - 10 * DAY_MS) }, { at: new Date(now - DAY_MS) }, { at: new Date(now) }]);
    const body = (await view(tenant.session)).json();
    expect(body).toEqual({
      plan: { id: 'free', name: 'Free trial', description: expect.any(String), price: 0, currency: 'USD', interval: 'month' },
      status: 'Trial',
      trial_days_remaining: 5,
      next_billing_date: trialEnd.toISOString(),
      current_period_end: trialEnd.toISOString(),
      cancel_at_period_end: false,
      usage: { contacts: { used: 3, limit: 250 }, conversations: { used: 2, limit: 100 }, team_members: { used: 3, limit: 2 } },
      over_limit: true,
    });
  });

  it.each([
    ['active', false, 'Active', true],
    ['active', true, 'Active', false],
    ['past_due', false, 'Past due', false],
    ['canceled', false, 'Cancelled', false],
  ])('shows %s (cancel at period end %s) as %s, with a next billing date only when it renews', async (status, cancel, label, renews) => {
    const tenant = await createTestTenant(t.app);
    await postSigned(t.app, event(tenant.ctx.organizationId, { status, cancel_at_period_end: cancel, plan_id: 'business' }));
    const body = (await view(tenant.key)).json();
    expect(body).toMatchObject({ status: label, trial_days_remaining: null, current_period_end: '2026-02-01T00:00:00.000Z', cancel_at_period_end: cancel });
    expect(body.next_billing_date).toBe(renews ? '2026-02-01T00:00:00.000Z' : null);
    expect(body.plan).toMatchObject({ id: 'business', price: 199 });
    expect(body.usage.team_members).toEqual({ used: 1, limit: null });
  });

  it('refuses the view without credentials (401)', async () => {
    expect((await view({})).statusCode).toBe(401);
  });

  it('serves the plans to every signed-in member and takes no writes', async () => {
    const tenant = await createTestTenant(t.app);
    const agent = await memberHeaders(t.app, tenant, 'AGENT');
    const plans = await rest('subscription_plans?select=id,price,limit_team_members&order=price.asc', agent);
    expect(plans.statusCode).toBe(200);
    expect(plans.json()).toEqual([
      { id: 'free', price: 0, limit_team_members: 2 },
      { id: 'starter', price: 29, limit_team_members: 3 },
      { id: 'growth', price: 79, limit_team_members: 10 },
      { id: 'business', price: 199, limit_team_members: null },
    ]);
    const writes = [
      ['POST', 'subscription_plans'],
      ['PATCH', 'subscription_plans?id=eq.free'],
      ['DELETE', 'subscription_plans?id=eq.free'],
      ['PATCH', 'subscriptions?status=eq.active'],
    ];
    for (const [method, url] of writes) {
      const headers = { ...tenant.session, 'content-type': 'application/json' };
      const response = await t.app.inject({ method: method as 'POST', url: `/rest/v1/${url}`, headers, payload: { price: 0, status: 'active' } });
      expect({ method, url, status: response.statusCode }).toEqual({ method, url, status: 405 });
    }
    expect((await rest('subscription_plans', {})).statusCode).toBe(401);
  });

  it('shows an organization only its own subscription; OWNER and ADMIN read every column, other members the plan and status', async () => {
    const a = await createTestTenant(t.app);
    const b = await createTestTenant(t.app);
    await postSigned(t.app, event(a.ctx.organizationId, { shop_domain: 'a.example' }));
    await postSigned(t.app, event(b.ctx.organizationId, { shop_domain: 'b.example', plan_id: 'growth' }));
    for (const headers of [a.session, await memberHeaders(t.app, a, 'ADMIN')]) {
      const rows = (await rest('subscriptions?select=*', headers)).json();
      const all = { organization_id: a.ctx.organizationId, plan_id: 'starter', shop_domain: 'a.example', owner_id: a.ctx.userId };
      expect(rows).toEqual([expect.objectContaining(all)]);
    }
    const agent = await memberHeaders(t.app, a, 'AGENT');
    const seen = await rest('subscriptions?select=*,subscription_plans(name)', agent);
    const plain = { id: expect.any(String), organization_id: a.ctx.organizationId, plan_id: 'starter', status: 'active' };
    expect(seen.json()).toEqual([{ ...plain, subscription_plans: { name: 'Starter' } }]);
    const hidden = await rest('subscriptions?select=shop_domain', agent);
    expect(hidden.statusCode).toBe(400);
    const own = await rest('subscriptions?shop_domain=eq.b.example', b.session);
    expect(own.json()).toEqual([expect.objectContaining({ organization_id: b.ctx.organizationId })]);
    expect((await rest('subscriptions?shop_domain=eq.b.example', a.session)).json()).toEqual([]);
    expect((await view(b.session)).json().plan.id).toBe('growth');
  });
});
