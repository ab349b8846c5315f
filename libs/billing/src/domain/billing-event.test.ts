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
    ['February 30th', { current_period_start: '2026-02-30T00:00:00Z' }, 'current_period_start'],
    ['February 29th of a common year', { current_period_end: '2026-02-29T00:00:00Z' }, 'current_period_end'],
    ['April 31st', { trial_start: '2026-04-31T00:00:00Z' }, 'trial_start'],
    ['day 00', { trial_end: '2026-01-00T00:00:00Z' }, 'trial_end'],
    ['month 13', { current_period_start: '2026-13-01T00:00:00Z' }, 'current_period_start'],
    ['month 00', { current_period_start: '2026-00-10T00:00:00Z' }, 'current_period_start'],
    ['hour 24', { current_period_start: '2026-01-01T24:00:00Z' }, 'current_period_start'],
    ['minute 60', { current_period_end: '2026-01-01T10:60:00Z' }, 'current_period_end'],
    ['a leap second', { current_period_end: '2016-12-31T23:59:60Z' }, 'current_period_end'],
    ['a zone offset of 24 hours', { trial_end: '2026-01-01T00:00:00+24:00' }, 'trial_end'],
    ['a zone offset of 60 minutes', { trial_end: '2026-01-01T00:00:00+01:60' }, 'trial_end'],
    ['a date without a time', { current_period_start: '2026-03-01' }, 'current_period_start'],
    ['a time without a zone (read as local time by Date)', { current_period_start: '2026-03-01T00:00:00' }, 'current_period_start'],
    ['a year before 1970', { current_period_start: '1969-12-31T23:59:59Z' }, 'current_period_start'],
    ['a two-digit year padded to four (Date.UTC would read 1970)', { current_period_start: '0070-01-01T00:00:00Z' }, 'current_period_start'],
    ['an instant past 9999 once the offset is applied', { current_period_end: '9999-12-31T23:00:00-02:00' }, 'current_period_end'],
    ['a date Date.parse reads loosely', { trial_start: 'March 1, 2026 00:00 UTC' }, 'trial_start'],
    ['surrounding spaces', { trial_start: ' 2026-03-01T00:00:00Z' }, 'trial_start'],
  ])('refuses %s, naming the field', (_case, overrides, field) => {
    expect(() => parse({ ...base, ...overrides })).toThrow(expect.objectContaining({ code: 'invalid_field', details: { field } }));
  });

  it('says which part of an impossible date is wrong', () => {
    expect(() => parse({ ...base, current_period_start: '2026-02-30T00:00:00Z' })).toThrow(/^current_period_start has no day 30 in 2026-02/);
  });

  it.each([
    ['a leap day', '2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['the last day of a 31-day month', '2026-01-31T23:59:59Z', '2026-01-31T23:59:59.000Z'],
    ['minutes without seconds', '2026-03-01T12:30Z', '2026-03-01T12:30:00.000Z'],
    ['a fraction of a second (beyond milliseconds truncated)', '2026-03-01T00:00:00.123456789Z', '2026-03-01T00:00:00.123Z'],
    ['a negative offset', '2026-02-28T22:00:00-02:00', '2026-03-01T00:00:00.000Z'],
    ['an offset without a colon', '2026-03-01T02:00:00+0200', '2026-03-01T00:00:00.000Z'],
    ['a space for the T', '2026-03-01 00:00:00Z', '2026-03-01T00:00:00.000Z'],
    ['the epoch', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
  ])('accepts %s', (_case, value, instant) => {
    expect(parse({ ...base, current_period_start: value }).currentPeriodStart?.toISOString()).toBe(instant);
  });
});
