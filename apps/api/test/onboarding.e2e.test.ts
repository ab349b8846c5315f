import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { listDevMailbox } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

// §3 Onboarding end to end over HTTP: verify_email → select_plan → channel_setup (optional) → finish.
describe('onboarding over HTTP', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp());
  });
  afterAll(() => close());

  const state = (t: TestTenant) => app.inject({ method: 'GET', url: '/functions/v1/onboarding', headers: t.session });
  const act = (t: TestTenant, action: string, payload: unknown = {}, headers = t.session) =>
    app.inject({ method: 'POST', url: `/functions/v1/onboarding/${action}`, headers, payload: payload as object });
  const patchProfile = (t: TestTenant, payload: object) =>
    app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${t.ctx.userId}`, headers: { ...t.session, prefer: 'return=representation' }, payload });
  const unverified = async () => {
    const t = await createTestTenant(app);
    await runtime.db.asSystem((tx) => tx.query('UPDATE users SET email_confirmed_at = NULL WHERE id = $1', [t.ctx.userId]));
    return t;
  };
  // What the billing bridge writes when the storefront reports the purchase.
  const subscribe = (t: TestTenant, status = 'trialing') =>
    runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO subscriptions (organization_id, plan_id, storefront_store_id, status, current_period_start, current_period_end)
                VALUES ($1, 'starter', $2, $3, now(), now() + interval '14 days')`,
        [t.ctx.organizationId, randomUUID(), status],
      ),
    );

  it('should walk a new owner through verification, plan selection and "skip for now", refusing each step out of order', async () => {
    const t = await unverified();
    expect((await state(t)).json()).toEqual({
      current_step: 'verify_email',
      completed_steps: [],
      missing: ['verify_email', 'select_plan'],
      onboarding_completed: false,
    });

    for (const action of ['select-plan', 'skip-channels', 'finish']) {
      const early = await act(t, action, { plan_id: 'starter' });
      expect({ action, status: early.statusCode, code: early.json().code }).toEqual({ action, status: 409, code: 'onboarding.step_missing' });
      expect(early.json().error).toMatch(/verify_email/);
    }
    const patched = await patchProfile(t, { onboarding_completed: true });
    expect(patched.statusCode).toBe(409);
    expect(patched.json()).toMatchObject({ code: 'onboarding.step_missing', details: { missing_step: 'verify_email' } });

    const resent = await act(t, 'verify-email');
    expect(resent.statusCode).toBe(200);
    expect(resent.json()).toMatchObject({ sent: true, onboarding: { current_step: 'verify_email' } });
    const mail = (await listDevMailbox(runtime.config.DATA_DIR)).find((m) => m.to === t.email);
    const link = /\/auth\/v1\/verify\?\S+/.exec(mail?.text ?? '');
    expect((await app.inject({ method: 'GET', url: link![0] })).statusCode).toBe(200);
    expect((await act(t, 'verify-email')).json()).toMatchObject({ sent: false, reason: 'already_verified' });
    expect((await state(t)).json()).toEqual({
      current_step: 'select_plan',
      completed_steps: ['verify_email'],
      missing: ['select_plan'],
      onboarding_completed: false,
    });

    const chosen = await act(t, 'select-plan', { plan_id: 'starter' });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json()).toMatchObject({
      plan: { id: 'starter', name: 'Starter', price: 29, currency: 'USD', interval: 'month' },
      checkout: { plan_id: 'starter', status: 'awaiting_billing_event' },
      onboarding: { current_step: 'select_plan', missing: ['select_plan'] },
    });
    // Choosing is not paying: finishing still waits for the subscription.
    const unpaid = await act(t, 'finish');
    expect(unpaid.statusCode).toBe(409);
    expect(unpaid.json().error).toMatch(/select_plan/);
    const early = await patchProfile(t, { onboarding_completed: true });
    expect(early.json()).toMatchObject({ code: 'onboarding.step_missing', details: { missing_step: 'select_plan' } });

    await subscribe(t);
    expect((await state(t)).json()).toEqual({
      current_step: 'channel_setup',
      completed_steps: ['verify_email', 'select_plan'],
      missing: [],
      onboarding_completed: false,
    });
    expect((await act(t, 'select-plan', { plan_id: 'starter' })).json().checkout.status).toBe('subscribed');
    const skipped = await act(t, 'skip-channels');
    expect(skipped.statusCode).toBe(200);
    expect(skipped.json()).toEqual({
      current_step: null,
      completed_steps: ['verify_email', 'select_plan', 'channel_setup', 'finish'],
      missing: [],
      onboarding_completed: true,
    });
    const url = `/rest/v1/profiles?id=eq.${t.ctx.userId}&select=onboarding_completed,email_confirmed`;
    const profile = await app.inject({ method: 'GET', url, headers: t.session });
    expect(profile.json()).toEqual([{ onboarding_completed: true, email_confirmed: true }]);
  });

  it('should finish without channel setup, and accept the profile PATCH once the required steps are done', async () => {
    const t = await createTestTenant(app);
    await subscribe(t, 'active');
    const finished = await act(t, 'finish');
    expect(finished.statusCode).toBe(200);
    expect(finished.json()).toEqual({
      current_step: null,
      completed_steps: ['verify_email', 'select_plan', 'finish'],
      missing: [],
      onboarding_completed: true,
    });

    const other = await createTestTenant(app);
    await subscribe(other);
    expect((await patchProfile(other, { onboarding_completed: true })).statusCode).toBe(200);
  });

  // Billing's and messaging's facts come through their published views (docs/architecture.md).
  it("should count the organization's own channel accounts and a subscription in good standing only, and offer only active plans", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const addChannel = (tenant: TestTenant) =>
      runtime.db.asSystem((tx) =>
        tx.query(`INSERT INTO channel_accounts (organization_id, kind, name) VALUES ($1, 'chat_app', 'Support')`, [tenant.ctx.organizationId]),
      );
    await addChannel(other);
    await subscribe(t, 'past_due');
    expect((await state(t)).json()).toEqual({
      current_step: 'select_plan',
      completed_steps: ['verify_email'],
      missing: ['select_plan'],
      onboarding_completed: false,
    });
    expect((await act(t, 'select-plan', { plan_id: 'starter' })).json().checkout.status).toBe('awaiting_billing_event');

    await runtime.db.asSystem((tx) => tx.query(`UPDATE subscriptions SET status = 'active' WHERE organization_id = $1`, [t.ctx.organizationId]));
    await addChannel(t);
    expect((await state(t)).json()).toEqual({
      current_step: 'finish',
      completed_steps: ['verify_email', 'select_plan', 'channel_setup'],
      missing: [],
      onboarding_completed: false,
    });
    expect((await act(t, 'select-plan', { plan_id: 'starter' })).json().checkout.status).toBe('subscribed');

    const retired = `retired-${randomUUID().slice(0, 8)}`;
    await runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO subscription_plans (id, name, price, currency, interval, is_active)
                                               VALUES ($1, 'Retired', 5, 'USD', 'month', false)`,
        [retired],
      ),
    );
    const refused = await act(t, 'select-plan', { plan_id: retired });
    expect({ status: refused.statusCode, code: refused.json().code }).toEqual({ status: 400, code: 'plan.unknown' });
    await runtime.db.asSystem((tx) => tx.query('DELETE FROM subscription_plans WHERE id = $1', [retired]));
  });

  it("should not count another organization's subscription, and refuse bad input with a clear 4xx", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    await subscribe(b);
    expect((await state(a)).json().missing).toEqual(['select_plan']);
    expect((await act(a, 'finish')).statusCode).toBe(409);

    const bad = [{}, { plan_id: 5 }, { plan_id: null }, { plan_id: ['starter'] }, { plan_id: 'x'.repeat(64) }, { plan_id: 'Starter!' }, { plan_id: 'nope' }];
    for (const body of bad) {
      const res = await act(a, 'select-plan', body);
      const code = expect.stringMatching(/^(validation_failed|plan\.unknown)$/);
      expect({ body, status: res.statusCode, code: res.json().code }).toEqual({ body, status: 400, code });
    }
    expect((await act(a, 'select-plan', { plan_id: 'nope' })).json().code).toBe('plan.unknown');
    const headers = { ...a.session, 'content-type': 'application/json' };
    expect((await app.inject({ method: 'POST', url: '/functions/v1/onboarding/select-plan', headers, payload: '{"plan_id":' })).statusCode).toBe(400);
    for (const action of ['launch', 'x'.repeat(300), 'finish%00']) {
      expect((await act(a, action)).statusCode).toBeGreaterThanOrEqual(400);
      expect((await act(a, action)).statusCode).toBeLessThan(500);
    }
    expect((await act(a, 'launch')).statusCode).toBe(404);
    // Signed-in users only: no session, or an API key, is refused.
    expect((await app.inject({ method: 'GET', url: '/functions/v1/onboarding' })).statusCode).toBe(401);
    expect((await act(a, 'finish', {}, a.key)).statusCode).toBe(401);
    // Another organization's user is out of reach: the filter matches nothing (PostgREST answers no rows), and nothing changes.
    const foreign = await patchProfile({ ...a, ctx: { ...a.ctx, userId: b.ctx.userId } }, { onboarding_completed: true });
    expect({ status: foreign.statusCode, body: foreign.json() }).toEqual({ status: 200, body: [] });
    const [row] = await runtime.db.asSystem((tx) => tx.query('SELECT onboarding_completed FROM users WHERE id = $1', [b.ctx.userId]));
    expect(row).toEqual({ onboarding_completed: false });
  });
});
