import { type SubscriptionFacts, subscriptionView } from './subscription-view';

const plan = {
  id: 'starter',
  name: 'Starter',
  description: 'd',
  price: '29.00',
  currency: 'USD',
  interval: 'month',
  limit_contacts: 10,
  limit_conversations_per_month: null,
  limit_team_members: 3,
};
const now = new Date('2026-01-10T12:00:00Z');
const usage = { contacts: 10, conversations: 500, team_members: 3 };
const facts = (overrides: Partial<SubscriptionFacts>): SubscriptionFacts => ({
  status: 'active',
  current_period_end: new Date('2026-02-01T00:00:00Z'),
  trial_end: null,
  cancel_at_period_end: false,
  plan,
  ...overrides,
});

describe('subscriptionView', () => {
  it('is not over its limits at exactly the limit, nor on an unlimited meter', () => {
    const view = subscriptionView(facts({}), usage, now);
    expect(view.over_limit).toBe(false);
    expect(view.usage).toEqual({ contacts: { used: 10, limit: 10 }, conversations: { used: 500, limit: null }, team_members: { used: 3, limit: 3 } });
    expect(subscriptionView(facts({}), { ...usage, contacts: 11 }, now).over_limit).toBe(true);
  });

  it('counts trial days up, never below 0, and bills a trial at its end (or the period end without one)', () => {
    expect(subscriptionView(facts({ status: 'trialing', trial_end: new Date('2026-01-11T13:00:00Z') }), usage, now)).toMatchObject({
      status: 'Trial',
      trial_days_remaining: 2,
      next_billing_date: '2026-01-11T13:00:00.000Z',
    });
    expect(subscriptionView(facts({ status: 'trialing', trial_end: new Date('2026-01-01T00:00:00Z') }), usage, now).trial_days_remaining).toBe(0);
    const undated = subscriptionView(facts({ status: 'trialing' }), usage, now);
    expect(undated).toMatchObject({ trial_days_remaining: null, next_billing_date: '2026-02-01T00:00:00.000Z' });
  });

  it('has no next billing date when past due, canceled or set to cancel, and none without a period end', () => {
    for (const status of ['past_due', 'canceled'] as const) expect(subscriptionView(facts({ status }), usage, now).next_billing_date).toBeNull();
    expect(subscriptionView(facts({ cancel_at_period_end: true }), usage, now).next_billing_date).toBeNull();
    expect(subscriptionView(facts({ current_period_end: null }), usage, now)).toMatchObject({ next_billing_date: null, current_period_end: null });
  });

  it('answers None with no plan and no limits without a subscription', () => {
    expect(subscriptionView(null, usage, now)).toMatchObject({ plan: null, status: 'None', over_limit: false, usage: { contacts: { used: 10, limit: null } } });
  });
});
