import { randomUUID } from 'node:crypto';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { messagingMigrations } from '@engage/messaging';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { PlatformRuntime } from '@engage/platform';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { billingMigrations } from '../index';

// The rules in the database itself; the HTTP paths are tested in apps/api/test/plan-limits.e2e.test.ts.
describe('plan limits in the database', () => {
  let runtime: PlatformRuntime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...billingMigrations] });
    await runtime.db.asSystem((tx) =>
      tx.query(`INSERT INTO subscription_plans (id, name, price, currency, interval, limit_contacts, limit_conversations_per_month, limit_team_members)
                VALUES ('tiny-db', 'Tiny', 1, 'USD', 'month', 3, 2, 1)`),
    );
  });
  afterAll(() => runtime.close());

  const subscribe = (ctx: RequestContext, status = 'active', periodEnd = "now() + interval '20 days'") =>
    runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO subscriptions (organization_id, plan_id, storefront_store_id, status, current_period_start, current_period_end)
                VALUES ($1, 'tiny-db', $2, $3, now() - interval '10 days', ${periodEnd})`,
        [ctx.organizationId, randomUUID(), status],
      ),
    );
  const ADD_CONTACTS = `INSERT INTO contacts (organization_id, first_name) SELECT app_org_id(), 'c' || i FROM generate_series(1, $1) i`;
  const addContacts = (ctx: RequestContext, n: number, options = {}) => runtime.db.inTenant(ctx, (tx) => tx.query(ADD_CONTACTS, [n]), options);
  const usage = (ctx: RequestContext) => runtime.db.inTenant(ctx, async (tx) => (await tx.query(`SELECT * FROM plan_usage_of(app_org_id())`))[0]);

  it('leaves an organization without a subscription unlimited', async () => {
    const ctx = await makeOrganization(runtime);
    await addContacts(ctx, 50);
    expect(await usage(ctx)).toMatchObject({ contacts_used: 50, contacts_limit: null, over_limit: false });
    expect(await runtime.db.asSystem((tx) => tx.query('SELECT 1 FROM plan_usage WHERE organization_id = $1', [ctx.organizationId]))).toEqual([]);
  });

  it('refuses the statement that goes past the limit with a 402 naming the limit, its value and the usage, counting existing rows', async () => {
    const ctx = await makeOrganization(runtime);
    await addContacts(ctx, 2);
    await subscribe(ctx);
    const refused = await addContacts(ctx, 2).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'payment_required', code: 'plan_limit_exceeded', details: { limit: 'contacts', value: 3, usage: 2 } });
    await addContacts(ctx, 1);
    await expect(addContacts(ctx, 1)).rejects.toMatchObject({ details: { limit: 'contacts', value: 3, usage: 3 } });
    // A deleted contact gives its place back.
    await runtime.db.inTenant(ctx, (tx) => tx.query(`DELETE FROM contacts WHERE id = (SELECT min(id::text)::uuid FROM contacts)`));
    await addContacts(ctx, 1);
    expect(await usage(ctx)).toMatchObject({ contacts_used: 3, contacts_limit: 3, over_limit: false });
  });

  it("keeps an inbound transaction's writes past the limit and flags the organization over its limit", async () => {
    const ctx = await makeOrganization(runtime);
    await subscribe(ctx);
    await addContacts(ctx, 5, { purpose: 'inbound' });
    expect(await usage(ctx)).toMatchObject({ contacts_used: 5, contacts_limit: 3, over_limit: true });
    expect((await usage(ctx)).over_limit_at).not.toBeNull();
  });

  it('refuses a member, and an invitation, past the team limit', async () => {
    const ctx = await makeOrganization(runtime);
    await subscribe(ctx);
    const NEW_USER = `INSERT INTO users (email, password_hash, first_name) VALUES ($1, 'x', 'M') RETURNING id`;
    const user = () => runtime.db.asSystem(async (tx) => (await tx.query<{ id: string }>(NEW_USER, [`${randomUUID()}@x.io`]))[0].id);
    const JOIN = `INSERT INTO memberships (organization_id, user_id, role) VALUES (app_org_id(), $1, 'AGENT')`;
    const join = async () => runtime.db.inTenant(ctx, async (tx) => tx.query(JOIN, [await user()]));
    await join();
    await expect(join()).rejects.toMatchObject({ code: 'plan_limit_exceeded', details: { limit: 'team_members', value: 1, usage: 1 } });
    const INVITE = `INSERT INTO invitations (organization_id, email, role, token_hash) VALUES (app_org_id(), 'a@b.io', 'AGENT', sha256('t'::bytea))`;
    await expect(runtime.db.inTenant(ctx, (tx) => tx.query(INVITE))).rejects.toMatchObject({
      code: 'plan_limit_exceeded',
      details: { limit: 'team_members', value: 1, usage: 1 },
    });
  });

  it('lets only one of many concurrent creations take the last place', async () => {
    const ctx = await makeOrganization(runtime);
    await subscribe(ctx);
    await addContacts(ctx, 2);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => addContacts(ctx, 1)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code);
    expect(refused).toEqual(Array(7).fill('plan_limit_exceeded'));
    expect(await usage(ctx)).toMatchObject({ contacts_used: 3 });
  });

  it('counts conversations of the current period only, afresh when the period moves, and shows a downgrade as over the limit', async () => {
    const ctx = await makeOrganization(runtime);
    await subscribe(ctx);
    await addContacts(ctx, 3);
    const OPEN = `
      WITH ch AS (INSERT INTO channel_accounts (organization_id, kind, name) VALUES (app_org_id(), 'chat_app', 'c') RETURNING id)
      INSERT INTO conversations (organization_id, contact_id, channel_account_id, created_at)
      SELECT app_org_id(), (SELECT id FROM contacts ORDER BY id OFFSET $1 LIMIT 1), ch.id, now() - make_interval(days => $2) FROM ch`;
    const open = (offset: number, daysAgo = 0) => runtime.db.inTenant(ctx, (tx) => tx.query(OPEN, [offset, daysAgo]));
    // Opened before the period began: not counted.
    await open(0, 15);
    await open(1);
    await open(2);
    await expect(open(0)).rejects.toMatchObject({ code: 'plan_limit_exceeded', details: { limit: 'conversations_per_month', value: 2, usage: 2 } });
    // The next period starts now: the count starts over.
    const MOVE = `UPDATE subscriptions SET current_period_start = now(), current_period_end = now() + interval '30 days' WHERE organization_id = $1`;
    await runtime.db.asSystem((tx) => tx.query(MOVE, [ctx.organizationId]));
    await open(0);
    expect(await usage(ctx)).toMatchObject({ conversations_used: 1, conversations_limit: 2, over_limit: false });
    // A smaller plan leaves the usage above it: over the limit, and new contacts refused.
    const MINI = `INSERT INTO subscription_plans (id, name, price, currency, interval, limit_contacts) VALUES ('mini-db', 'M', 1, 'USD', 'month', 1)`;
    await runtime.db.asSystem((tx) => tx.query(MINI));
    await runtime.db.asSystem((tx) => tx.query(`UPDATE subscriptions SET plan_id = 'mini-db' WHERE organization_id = $1`, [ctx.organizationId]));
    expect(await usage(ctx)).toMatchObject({ contacts_used: 3, contacts_limit: 1, over_limit: true });
    await expect(addContacts(ctx, 1)).rejects.toMatchObject({ details: { limit: 'contacts', value: 1, usage: 3 } });
  });

  it('makes the organization read-only once a canceled subscription has ended, except for billing and inbound', async () => {
    const ctx = await makeOrganization(runtime);
    await subscribe(ctx, 'canceled', "now() - interval '1 day'");
    await expect(addContacts(ctx, 1)).rejects.toMatchObject({ kind: 'payment_required', code: 'subscription_inactive' });
    expect(await runtime.db.inTenant(ctx, (tx) => tx.query('SELECT count(*)::int AS n FROM contacts'))).toEqual([{ n: 0 }]);
    await addContacts(ctx, 1, { purpose: 'billing' });
    await addContacts(ctx, 1, { purpose: 'inbound' });
    const RENEW = `UPDATE subscriptions SET status = 'active', current_period_end = now() + interval '1 month' WHERE organization_id = $1`;
    await runtime.db.asSystem((tx) => tx.query(RENEW, [ctx.organizationId]));
    await addContacts(ctx, 1);
  });
});
