import { OrganizationService, parseBusinessHours } from '@engage/identity';
import { calendar, dueAt, type ReportingSettings, responseValues } from '../application/reporting-settings';
import { BUSINESS_HOURS, businessSeconds } from '../infrastructure/response.sql';
import { queryNamed } from '../infrastructure/sql-params';
import { MessageRollups } from '../application/rollup.job';
import { type AnalyticsApp, createTestTenant, Fixtures, setSetting, startAnalyticsApp, type TestTenant, testClock } from '../testing';

// Hand-computed figures with business hours Mon-Fri 09:00-17:00 (UTC organization, 60-minute target).
// Period 2026-01-13 (Tue) .. 2026-01-16 (Fri):
//   A: customer Fri 16th 16:30, agent Mon 19th 09:30: 30 + 30 min = 3600 s (met: exactly the target)
//   B: customer Tue 13th 19:00, agent 23:30 the same night: 0 s (met)
//   C: customer Wed 14th 10:00, agent 12:06: 7560 s (missed)
//   D: customer Thu 15th 16:50, agent Fri 16th 09:20: 10 + 20 min = 1800 s (met; 16.5 hours by the clock)
//   mean 12960 / 4 = 3240 s = 0.90 h; SLA 3 of 4 = 75 %.
// Period 2026-01-19 (Mon) .. 2026-01-20 (Tue), now Tue 20th 09:45:
//   G: customer Mon 10:00, agent 10:30 (1800 s, met)
//   E: customer Mon 16:45, unanswered: 15 + 45 min = exactly the target, not past it (pending)
//   F: customer Mon 16:44, unanswered: 61 min, past the target (missed, overdue)
const WEEKDAYS = '{"mon":[["09:00","17:00"]],"tue":[["09:00","17:00"]],"wed":[["09:00","17:00"]],"thu":[["09:00","17:00"]],"fri":[["09:00","17:00"]]}';
const MORNINGS = '{"mon":[["09:00","10:00"]],"tue":[["09:00","10:00"]],"wed":[["09:00","10:00"]],"thu":[["09:00","10:00"]],"fri":[["09:00","10:00"]]}';
const NOW = new Date('2026-01-20T09:45:00Z');

describe('business hours', () => {
  let app: AnalyticsApp;
  let tenant: TestTenant;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    app = await startAnalyticsApp();
    tenant = await createTestTenant(app.app);
    const f = new Fixtures(app.db, tenant.ctx.organizationId);
    const thread = async (name: string, customer: string, agent?: string) => {
      const c = await f.conversation(await f.contact('2026-01-01T00:00:00Z'));
      ids[name] = c.id;
      await f.message(c, 'INBOUND', customer);
      if (agent) await f.message(c, 'OUTBOUND', agent);
    };
    await thread('A', '2026-01-16T16:30:00Z', '2026-01-19T09:30:00Z');
    await thread('B', '2026-01-13T19:00:00Z', '2026-01-13T23:30:00Z');
    await thread('C', '2026-01-14T10:00:00Z', '2026-01-14T12:06:00Z');
    await thread('D', '2026-01-15T16:50:00Z', '2026-01-16T09:20:00Z');
    await thread('G', '2026-01-19T10:00:00Z', '2026-01-19T10:30:00Z');
    await thread('E', '2026-01-19T16:45:00Z');
    await thread('F', '2026-01-19T16:44:00Z');
    await setSetting(app, tenant, 'business_hours', WEEKDAYS);
    // Rolled under these hours: the reports below read the rollups plus the live tail.
    await app.app.get(MessageRollups).handle();
  });
  beforeEach(() => {
    testClock.at = NOW;
  });
  afterAll(async () => {
    testClock.at = new Date('2026-01-20T12:00:00Z');
    await app.close();
  });

  const get = (path: string, headers: Record<string, string> = tenant.session) => app.app.inject({ method: 'GET', url: `/rest/v1/analytics/${path}`, headers });
  const seconds = async (from: string, to: string | null, zone: string, hours: string) =>
    (
      await app.db.systemQuery<{ s: string | null }>('SELECT analytics_business_seconds($1, $2, $3, $4)::text AS s', [
        from,
        to,
        zone,
        JSON.stringify(parseBusinessHours(hours)),
      ])
    )[0].s;

  it('should count only the time inside open intervals', async () => {
    expect(await seconds('2026-01-16T16:30:00Z', '2026-01-19T09:30:00Z', 'UTC', WEEKDAYS)).toBe('3600.000000');
    expect(await seconds('2026-01-13T19:00:00Z', '2026-01-13T23:30:00Z', 'UTC', WEEKDAYS)).toBe('0');
    expect(await seconds('2026-01-14T10:00:00Z', '2026-01-14T10:00:00Z', 'UTC', WEEKDAYS)).toBe('0');
    // In the organization's zone: 09:00-17:00 in Tokyo is 00:00-08:00 UTC.
    expect(await seconds('2026-01-14T07:00:00Z', '2026-01-14T10:00:00Z', 'Asia/Tokyo', WEEKDAYS)).toBe('3600.000000');
    // An interval ending at 24:00, across midnight into the next day's.
    const late = '{"sat":[["22:00","24:00"]],"sun":[["00:00","01:00"]]}';
    expect(await seconds('2026-01-17T23:00:00Z', '2026-01-18T02:00:00Z', 'UTC', late)).toBe('7200.000000');
    expect(await seconds('2026-01-17T23:00:00Z', null, 'UTC', late)).toBeNull();
  });

  it('should count the hours that really passed on the days of a DST change', async () => {
    const sundayNights = '{"sun":[["00:00","06:00"]]}';
    // Berlin, Sunday 2026-03-29: 02:00 becomes 03:00. 00:30 CET (23:30Z) to 05:30 CEST (03:30Z): 4 hours.
    expect(await seconds('2026-03-28T23:30:00Z', '2026-03-29T03:30:00Z', 'Europe/Berlin', sundayNights)).toBe('14400.000000');
    // The whole interval, 00:00 to 06:00 local: 5 hours that day; on 2026-10-25 (03:00 becomes 02:00) 7.
    expect(await seconds('2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z', 'Europe/Berlin', sundayNights)).toBe('18000.000000');
    expect(await seconds('2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z', 'Europe/Berlin', sundayNights)).toBe('25200.000000');
    // Open 01:00-02:30 and 03:00-04:00 on 2026-03-29, where 02:00-03:00 does not exist: 01:00-02:00 CET and 03:00-04:00 CEST.
    expect(await seconds('2026-03-28T12:00:00Z', '2026-03-29T12:00:00Z', 'Europe/Berlin', '{"sun":[["01:00","02:30"],["03:00","04:00"]]}')).toBe('7200.000000');
  });

  it('should count response seconds through the calendar exactly as the function does', async () => {
    const hours = '{"sun":[["01:00","02:30"],["03:00","04:00"],["22:00","24:00"]],"mon":[["00:00","01:00"],["09:00","17:00"]],"sat":[["02:15","02:45"]]}';
    const settings: ReportingSettings = { timeZone: 'Europe/Berlin', targetMinutes: 60, hours: parseBusinessHours(hours), schedule: 'x' };
    for (const around of ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z']) {
      const at = new Date(around);
      const [row] = await app.db.inTenant(tenant.ctx, async (tx) => {
        // The calendar covers 4 of the 6 days: pairs reaching past it are counted by the function.
        const days = await calendar(tx, settings, new Date(at.getTime() - 2 * 86400_000), new Date(at.getTime() + 2 * 86400_000));
        return queryNamed<{ pairs: number; differ: number }>(
          tx,
          `
          SELECT count(*)::int AS pairs, count(*) FILTER (WHERE x.s IS DISTINCT FROM ${businessSeconds('f.created_at', 'f.first_reply_at')})::int AS differ
          FROM (SELECT a AS created_at, a + make_interval(mins => m) AS first_reply_at
                FROM generate_series(:at::timestamptz - interval '2 days', :at::timestamptz + interval '1 day', interval '97 minutes') a,
                     generate_series(0, 3000, 173) m) f
          CROSS JOIN LATERAL (SELECT ${BUSINESS_HOURS.seconds} AS s) x`,
          { ...responseValues(settings, null), ...days, at },
        );
      });
      expect(row).toEqual({ pairs: 810, differ: 0 });
    }
  });

  it('should put :due where exactly the target lies before now, so before it is past the target', async () => {
    const hours = parseBusinessHours('{"sun":[["00:00","06:00"]],"mon":[["08:00","12:00"],["13:00","17:30"]],"sat":[["10:00","10:30"]]}');
    const cases = [
      ['2026-03-30T10:03:00Z', 60],
      ['2026-03-30T10:03:00Z', 600],
      ['2026-10-26T07:00:00Z', 330],
      ['2026-10-26T07:00:00Z', 45],
    ] as const;
    for (const [now, minutes] of cases) {
      const settings: ReportingSettings = { timeZone: 'Europe/Berlin', targetMinutes: minutes, hours, schedule: 'x' };
      const at = new Date(now);
      const [due, mismatches] = await app.db.inTenant(tenant.ctx, async (tx) => {
        const d = await dueAt(tx, settings, at, new Date(at.getTime() - 30 * 86400_000));
        const [row] = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM generate_series($1::timestamptz - interval '15 days', $1::timestamptz, interval '11 minutes') m
           WHERE (m < $2) IS DISTINCT FROM (analytics_business_seconds(m, $1, 'Europe/Berlin', $3) > $4 * 60)`,
          [at, d, JSON.stringify(hours), minutes],
        );
        return [d, row.n];
      });
      expect({ now, minutes, mismatches }).toEqual({ now, minutes, mismatches: 0 });
      expect(due).toBeInstanceOf(Date);
    }
    // Monday 2026-03-30 12:03 Berlin, closed since 12:00: 60 open minutes back is 11:00 (09:00Z).
    const settings: ReportingSettings = { timeZone: 'Europe/Berlin', targetMinutes: 60, hours, schedule: 'x' };
    const due = await app.db.inTenant(tenant.ctx, (tx) => dueAt(tx, settings, new Date('2026-03-30T10:03:00Z'), new Date('2026-03-01T00:00:00Z')));
    expect(due).toEqual(new Date('2026-03-30T09:00:00Z'));
  });

  it('should measure metrics, series and the SLA in business hours', async () => {
    const res = await get('metrics?start_date=2026-01-13&end_date=2026-01-16&group_by=day');
    expect(res.json().metrics).toMatchObject({ total_messages: 7, average_response_time: '0.90', sla_compliance: 75 });
    expect(res.json().series.map((d: { average_response_time: string }) => d.average_response_time)).toEqual(['0.00', '2.10', '0.50', '1.00']);
  });

  it('should judge an unanswered message overdue only once the target has passed in business hours', async () => {
    const inbox = async () => (await get('inbox?start_date=2026-01-19&end_date=2026-01-20')).json().inbox_metrics;
    expect(await inbox()).toMatchObject({ average_response_time: '0.50', sla_compliance: 50, overdue_conversations: 1 });
    testClock.at = new Date('2026-01-20T09:46:00Z');
    expect(await inbox()).toMatchObject({ sla_compliance: 33.33, overdue_conversations: 2 });
  });

  it('should export the conversations with their business-hours response times', async () => {
    const res = await get('metrics?start_date=2026-01-13&end_date=2026-01-16&detail=conversations', { ...tenant.session, accept: 'text/csv' });
    expect(res.statusCode).toBe(200);
    const rows = new Map(
      res.body
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((line) => [line.split(',')[0], line.split(',').slice(8)]),
    );
    expect([ids.A, ids.B, ids.C, ids.D].map((id) => rows.get(id))).toEqual([
      ['1.00', '1', '0'],
      ['0.00', '1', '0'],
      ['2.10', '0', '1'],
      ['0.50', '1', '0'],
    ]);
  });

  it('should give the response time and SLA widgets in business hours', async () => {
    const value = async (widget_type: string, start_date: string, end_date: string) => {
      const created = await app.app.inject({
        method: 'POST',
        url: '/rest/v1/dashboard_widgets',
        headers: { ...tenant.session, prefer: 'return=representation' },
        payload: { widget_type, widget_config: { date_range: 'Custom Range', start_date, end_date } },
      });
      const id = created.json()[0].id;
      const list = await app.app.inject({ method: 'GET', url: '/rest/v1/dashboard_widgets', headers: tenant.session });
      await app.app.inject({ method: 'DELETE', url: `/rest/v1/dashboard_widgets?id=eq.${id}`, headers: tenant.session });
      return list.json().widgets.find((w: { id: string }) => w.id === id).value;
    };
    expect(await value('response_time', '2026-01-13', '2026-01-16')).toBe(3240);
    expect(await value('sla', '2026-01-13', '2026-01-16')).toBe(75);
    expect(await value('sla', '2026-01-19', '2026-01-20')).toBe(50);
  });

  it('should follow a new schedule at once, never mixing it with rollups made under the old one', async () => {
    const metrics = async () => (await get('metrics?start_date=2026-01-13&end_date=2026-01-16')).json().metrics;
    const state = async () =>
      (
        await app.db.systemQuery<{ schedule: string | null }>('SELECT schedule FROM analytics_rollup_state WHERE organization_id = $1', [
          tenant.ctx.organizationId,
        ])
      )[0].schedule;
    expect(await state()).toBe(JSON.stringify(['UTC', parseBusinessHours(WEEKDAYS)]));
    // Mornings 09:00-10:00: A 30 min, B 0, C 0 (10:00-12:06 is closed), D 20 min: 3000 / 4 s = 0.21 h, all met.
    await setSetting(app, tenant, 'business_hours', MORNINGS);
    expect(await metrics()).toMatchObject({ average_response_time: '0.21', sla_compliance: 100 });
    await app.app.get(MessageRollups).handle();
    expect(await state()).toBe(JSON.stringify(['UTC', parseBusinessHours(MORNINGS)]));
    expect(await metrics()).toMatchObject({ average_response_time: '0.21', sla_compliance: 100 });
    // Without business hours every hour counts again: (234000 + 16200 + 7560 + 59400) / 4 s = 22.03 h, every one missed.
    await app.app.get(OrganizationService).clearSetting(tenant.ctx.organizationId, 'business_hours');
    expect(await metrics()).toMatchObject({ average_response_time: '22.03', sla_compliance: 0 });
    await app.app.get(MessageRollups).handle();
    expect(await state()).toBeNull();
    expect(await metrics()).toMatchObject({ average_response_time: '22.03', sla_compliance: 0 });
  });

  it('should refuse an invalid schedule when set, keeping the one in force', async () => {
    await expect(setSetting(app, tenant, 'business_hours', '{"mon":[["09:00","17:00"],["12:00","13:00"]]}')).rejects.toMatchObject({
      kind: 'validation',
      message: 'business_hours: mon has overlapping intervals (09:00-17:00 and 12:00-13:00)',
    });
    await expect(setSetting(app, tenant, 'business_hours', '{"funday":[]}')).rejects.toThrow(/"funday" is not a weekday/);
  });
});
