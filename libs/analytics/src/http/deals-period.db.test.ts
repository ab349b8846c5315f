import { type AnalyticsApp, createTestTenant, Fixtures, startAnalyticsApp, type TestTenant } from '../testing';

// Deals closed around the period's bounds, and deals whose outcome changed (docs/analytics.md).
// Period 2026-01-10..11 (UTC, end exclusive 2026-01-12T00:00Z); every deal created 2026-01-01.
//   X won 01-09 23:59:59 (before), Y lost 01-10 00:00 (at the start: in), Z won 01-11 23:59:59 (in),
//   W won 01-12 00:00 (at the end: out), R won 01-10 10:00 then re-opened 01-11 10:00 (open now),
//   S won 01-10 09:00 then lost 01-11 09:00 (closed once, lost, on the 11th).
// Closed in the period: Y lost, Z won, S lost: conversion 1 / 3 = 33.33 %. Open: R (value 40).
describe('GET /rest/v1/analytics/deals across the period bounds', () => {
  let app: AnalyticsApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await startAnalyticsApp();
    tenant = await createTestTenant(app.app);
    const f = new Fixtures(app.db, tenant.ctx.organizationId);
    const p = await f.pipeline();
    const created = '2026-01-01T00:00:00Z';
    await f.deal(p, p.won, 'WON', 1, created, '2026-01-09T23:59:59Z');
    await f.deal(p, p.lost, 'LOST', 2, created, '2026-01-10T00:00:00Z');
    await f.deal(p, p.won, 'WON', 300, created, '2026-01-11T23:59:59Z');
    await f.deal(p, p.won, 'WON', 4, created, '2026-01-12T00:00:00Z');
    const reopened = await f.deal(p, p.won, 'WON', 40, created, '2026-01-10T10:00:00Z');
    await f.move(reopened, p.lead, 'LEAD', '2026-01-11T10:00:00Z');
    const lost = await f.deal(p, p.won, 'WON', 500, created, '2026-01-10T09:00:00Z');
    await f.move(lost, p.lost, 'LOST', '2026-01-11T09:00:00Z');
  });
  afterAll(() => app.close());

  const get = (path: string) => app.app.inject({ method: 'GET', url: `/rest/v1/analytics/${path}`, headers: tenant.key });

  it('should count a deal closed at the start and not one closed at the end, a re-opened deal as open, and a deal moved to lost once', async () => {
    const res = await get('deals?start_date=2026-01-10&end_date=2026-01-11');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      deals_metrics: { active_deals_count: 1, pipeline_value: 40, conversion_rate: 33.33, stage_distribution: { Lead: 1, Lost: 2, Won: 3 } },
    });
  });

  it('should give the same split by day, and the re-opened deal in no day', async () => {
    const series = (await get('deals?start_date=2026-01-10&end_date=2026-01-11&group_by=day')).json().series;
    expect(series).toEqual([
      { date: '2026-01-10', new_deals: 0, deals_won: 0, deals_lost: 1, won_value: 0, conversion_rate: 0 },
      { date: '2026-01-11', new_deals: 0, deals_won: 1, deals_lost: 1, won_value: 300, conversion_rate: 50 },
    ]);
  });

  it('should take timestamps with an offset as instants, end excluded', async () => {
    const res = await get('deals?start_date=2026-01-10T02:00:00%2B02:00&end_date=2026-01-12T01:00:00Z');
    // [01-10 00:00Z, 01-12 01:00Z): W (won at 01-12 00:00Z) is now in: won Z, W; lost Y, S.
    expect(res.json().deals_metrics.conversion_rate).toBe(50);
  });

  it('should give the deal widgets the same facts: the re-opened deal in the pipeline value, the lost one not won', async () => {
    // Now is 2026-01-20: This Month is January, where X, Z and W were won (R re-opened, S lost).
    const res = await app.app.inject({ method: 'GET', url: '/rest/v1/dashboard_widgets', headers: tenant.session });
    expect(res.statusCode).toBe(200);
    const values = Object.fromEntries(res.json().widgets.map((w: { widget_type: string; value: number | null }) => [w.widget_type, w.value]));
    expect(values).toMatchObject({ pipeline_value: 40, deals_won: 3 });
  });

  it('should answer a bad date with a 400 naming it', async () => {
    const res = await get('deals?start_date=2026-13-40');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('start_date');
  });
});
