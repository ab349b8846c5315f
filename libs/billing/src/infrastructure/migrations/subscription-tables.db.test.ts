import { identityMigrations } from '@engage/identity';
import { crmMigrations } from '@engage/crm';
import { messagingMigrations } from '@engage/messaging';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { PlatformRuntime } from '@engage/platform';
import { billingMigrations } from '../../index';

describe('billing schema', () => {
  let runtime: PlatformRuntime;
  beforeAll(async () => {
    // Plan limits count contacts, conversations and members: their tables come first.
    const migrations = [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...billingMigrations];
    runtime = await startTestRuntime({ migrations });
  });
  afterAll(() => runtime.close());

  it('seeds a free plan and three paid tiers, readable by tenants and not writable by them', async () => {
    const ctx = await makeOrganization(runtime);
    const plans = await runtime.db.inTenant(ctx, (tx) => tx.query<{ id: string; price: string }>('SELECT id, price FROM subscription_plans ORDER BY price'));
    expect(plans.map((plan) => plan.id)).toEqual(['free', 'starter', 'growth', 'business']);
    await expect(runtime.db.inTenant(ctx, (tx) => tx.query(`UPDATE subscription_plans SET price = 0`))).rejects.toThrow(/permission denied/);
  });

  it('keeps one subscription per organization and per store, with a known status, seen only by its organization', async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    const insert = `INSERT INTO subscriptions (organization_id, plan_id, storefront_store_id, status) VALUES ($1, 'starter', $2, $3)`;
    await runtime.db.asSystem((tx) => tx.query(insert, [a.organizationId, `store-${a.organizationId}`, 'active']));
    await expect(runtime.db.asSystem((tx) => tx.query(insert, [a.organizationId, 'another-store', 'active']))).rejects.toThrow(/organization_id/);
    const taken = runtime.db.asSystem((tx) => tx.query(insert, [b.organizationId, `store-${a.organizationId}`, 'active']));
    await expect(taken).rejects.toThrow(/storefront_store_id/);
    await expect(runtime.db.asSystem((tx) => tx.query(insert, [b.organizationId, 'store-b', 'paused']))).rejects.toThrow(/status/);
    expect(await runtime.db.inTenant(a, (tx) => tx.query('SELECT status FROM subscriptions'))).toEqual([{ status: 'active' }]);
    expect(await runtime.db.inTenant(b, (tx) => tx.query('SELECT status FROM subscriptions'))).toEqual([]);
  });
});
