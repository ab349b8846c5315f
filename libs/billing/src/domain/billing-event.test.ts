import { parseBillingEvent } from './billing-event';

const parse = (body: unknown) => parseBillingEvent(Buffer.from(JSON.stringify(body)));
const base = { organization_id: '0B7F1C1E-4C5A-4D4B-9B1F-1E2D3C4B5A69', plan_id: 'starter', storefront_store_id: 'shop-1', status: 'active' };

describe('parseBillingEvent', () => {
  it('reads the required fields, a number store id as its decimal text, and lower-cases the organization id', () => {
    expect(parse({ ...base, storefront_store_id: 12345678901 })).toEqual({
      organizationId: '0b7f1c1e-4c5a-4d4b-9b1f-1e2d3c4b5a69',
      planId: 'starter',
      storeId: '12345678901',
      status: 'active',
      currentPeriodStart: undefined,
      currentPeriodEnd: undefined,
      trialStart: undefined,
      trialEnd: undefined,
    });
  });

  it('tells a trial date sent as null (clear it) from one not sent (keep it), and ignores unknown fields', () => {
    const extra = { extra: { anything: true }, current_period_start: '2026-01-01T00:00:00+02:00', cancel_at_period_end: false };
    const event = parse({ ...base, trial_start: null, ...extra });
    expect(event).toMatchObject({ trialStart: null, trialEnd: undefined, cancelAtPeriodEnd: false, currentPeriodStart: new Date('2025-12-31T22:00:00Z') });
  });

  it.each([
    ['a store id with surrounding spaces', { storefront_store_id: ' shop-1' }, 'storefront_store_id'],
    ['an unsafe integer store id', { storefront_store_id: 2 ** 60 }, 'storefront_store_id'],
    ['a date without a year', { current_period_end: '01-31' }, 'current_period_end'],
    ['a year beyond 9999', { current_period_start: '10000-01-01' }, 'current_period_start'],
  ])('refuses %s, naming the field', (_case, overrides, field) => {
    expect(() => parse({ ...base, ...overrides })).toThrow(expect.objectContaining({ code: 'invalid_field', details: { field } }));
  });
});
