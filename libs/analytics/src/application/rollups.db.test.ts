import { OrganizationService, OrganizationSettings, parseBusinessHours } from '@engage/identity';
import { parseReportQuery } from '../domain/report-query';
import { INBOX, INBOX_BY_DAY, METRICS, METRICS_BY_DAY } from '../infrastructure/analytics.sql';
import { queryNamed } from '../infrastructure/sql-params';
import { type AnalyticsApp, createTestTenant, Fixtures, setSetting, startAnalyticsApp, testClock, type TestTenant } from '../testing';
import { AnalyticsService } from './analytics.service';
import { resolvePeriod } from './report-period';
import { dueAt, reportingSettings, reportValues, ruleOf } from './reporting-settings';
import { coverage } from './rollup-coverage';
import { MessageRollups } from './rollup.job';

type Row = Record<string, unknown>;
const DIRECT = { metrics: { sql: METRICS, byDay: METRICS_BY_DAY }, inbox: { sql: INBOX, byDay: INBOX_BY_DAY } };
const QUERIES = [
  'start_date=2026-01-10&end_date=2026-01-15',
  'start_date=2026-01-18&end_date=2026-01-20',
  'start_date=2026-01-10T10:07:30Z&end_date=2026-01-12T23:52:00Z',
  'start_date=2026-01-19T06:00:00&end_date=2026-01-20T12:00:00',
  'start_date=2025-12-01&end_date=2025-12-31',
];

// Reports from rollups and live tail equal the direct statements (analytics.sql.ts) on the same data.
// The test clock says 2026-01-20T12:00Z; the job runs on the real clock, long after the fixtures.
describe('rollups', () => {
  let app: AnalyticsApp;
  let tenant: TestTenant;
  let f: Fixtures;
  let job: MessageRollups;
  let service: AnalyticsService;

  // Every report (metrics, inbox; summary and by day) for every query, both ways.
  async function expectEqual(): Promise<void> {
    for (const raw of QUERIES) {
      const params = Object.fromEntries(new URLSearchParams(raw));
      for (const report of ['metrics', 'inbox'] as const) {
        const query = parseReportQuery({ ...params, group_by: 'day' }, tenant.ctx.organizationId);
        const rolled = await service.report(tenant.ctx, report, query);
        const { metrics, inbox_metrics, series } = rolled as { metrics?: Row; inbox_metrics?: Row; series: Row[] };
        const { period_comparison, ...figures } = (metrics ?? inbox_metrics) as Row & { period_comparison?: Row };
        expect({ report, raw, summary: { ...figures, ...period_comparison }, series }).toEqual({ report, raw, ...(await direct(report, params)) });
      }
    }
  }

  async function direct(report: 'metrics' | 'inbox', params: Row): Promise<{ summary: Row; series: Row[] }> {
    const settings = await reportingSettings((id, keys) => app.app.get(OrganizationSettings).plainMany(id, keys), tenant.ctx.organizationId);
    const rule = ruleOf(settings);
    return app.db.inTenant(tenant.ctx, async (tx) => {
      const period = await resolvePeriod(tx, parseReportQuery(params, tenant.ctx.organizationId), settings.timeZone, testClock.now());
      const values = {
        start: period.start,
        end: period.end,
        prev: period.previousStart,
        now: period.now,
        first: period.firstDay,
        last: period.lastDay,
        ...(await reportValues(tx, settings, period.now, period.previousStart)),
      };
      const [summary] = await queryNamed(tx, DIRECT[report].sql[rule], values);
      return { summary, series: await queryNamed(tx, DIRECT[report].byDay[rule], values) };
    });
  }

  // What the 2026-01-10..15 report reads from the rollups, and which quarter hours are stale.
  const covered = () =>
    app.db.inTenant(tenant.ctx, (tx) =>
      coverage(tx, {
        bounds: [new Date('2026-01-10T00:00:00Z'), new Date('2026-01-16T00:00:00Z')],
        due: new Date(testClock.now().getTime() - 3600_000),
        targetMinutes: 60,
        schedule: null,
      }),
    );
  const rows = async () =>
    (
      await app.db.systemQuery<{ n: number }>('SELECT count(*)::int AS n FROM analytics_message_rollups WHERE organization_id = $1', [
        tenant.ctx.organizationId,
      ])
    )[0].n;

  let agent: string;
  let conversations: { id: string; contactId: string }[];

  beforeAll(async () => {
    app = await startAnalyticsApp();
    tenant = await createTestTenant(app.app);
    job = app.app.get(MessageRollups);
    service = app.app.get(AnalyticsService);
    f = new Fixtures(app.db, tenant.ctx.organizationId);
    agent = (
      await app.db.systemQuery<{ user_id: string }>('SELECT user_id FROM memberships WHERE organization_id = $1 LIMIT 1', [tenant.ctx.organizationId])
    )[0].user_id;
    conversations = [];
    for (let i = 0; i < 4; i++) {
      conversations.push(await f.conversation(await f.contact(`2026-01-${String(8 + i).padStart(2, '0')}T10:00:00Z`), { assignee: i % 2 ? agent : null }));
    }
    // Customer and agent in turn, minutes to hours apart, over 2026-01-08..20 (the tail included).
    for (let day = 8; day <= 20; day++) {
      for (const [i, c] of conversations.entries()) {
        const at = Date.UTC(2026, 0, day, (i * 5 + day) % 24, (i * 17 + day * 7) % 60, (i * 13) % 60);
        await f.message(c, 'INBOUND', new Date(at).toISOString());
        if ((day + i) % 5 !== 0) await f.message(c, 'OUTBOUND', new Date(at + ((day * 31 + i * 47) % 150) * 60_000).toISOString());
      }
    }
    // Exactly on period boundaries (UTC and Asia/Kathmandu midnights).
    await f.message(conversations[0], 'INBOUND', '2026-01-10T00:00:00Z');
    await f.message(conversations[1], 'INBOUND', '2026-01-15T18:15:00Z');
    await f.message(conversations[1], 'OUTBOUND', '2026-01-15T18:14:59.999Z');
  });
  afterAll(() => app.close());

  it('should give the direct answers with nothing rolled, then roll every quarter hour once across two runners', async () => {
    await expectEqual();
    const [a, b] = await Promise.all([job.handle(), job.handle()]);
    const buckets = (
      await app.db.systemQuery<{ n: number }>(
        `SELECT count(DISTINCT date_bin('15 minutes', created_at, timestamptz '1970-01-01Z'))::int AS n FROM messages WHERE organization_id = $1`,
        [tenant.ctx.organizationId],
      )
    )[0].n;
    expect(a.rolled + b.rolled).toBe(buckets);
    expect(await rows()).toBe(buckets);
    expect((await job.handle()).rolled).toBe(0);
    const cover = await covered();
    expect(cover.rs).toEqual([new Date('2026-01-10T00:00:00Z')]);
    expect(cover.re).toEqual([new Date('2026-01-16T00:00:00Z')]);
    expect(cover.stale).toEqual([]);
    await expectEqual();
  });

  it('should read a reply that came after its quarter hour was rolled directly until the job re-rolls it', async () => {
    const c = await f.conversation(await f.contact('2026-01-11T00:00:00Z'));
    await f.message(c, 'INBOUND', '2026-01-11T09:05:00Z');
    await job.handle();
    await f.message(c, 'OUTBOUND', '2026-01-11T13:00:00Z');
    // The customer message's quarter hour (first_reply_at set), and the reply's own (stored in the past).
    expect((await covered()).stale).toEqual([new Date('2026-01-11T09:00:00Z'), new Date('2026-01-11T13:00:00Z')]);
    await expectEqual();
    expect((await job.handle()).rerolled).toBe(2);
    expect((await covered()).stale).toEqual([]);
    await expectEqual();
  });

  it('should follow a reply that fails, a message stored in the past and an assignment', async () => {
    const c = conversations[2];
    const [reply] = await app.db.systemQuery<{ id: string }>(
      "SELECT id FROM messages WHERE conversation_id = $1 AND direction = 'OUTBOUND' AND created_at > '2026-01-12' ORDER BY created_at LIMIT 1",
      [c.id],
    );
    await app.db.systemQuery("UPDATE messages SET status = 'FAILED' WHERE id = $1", [reply.id]);
    await f.message(conversations[3], 'INBOUND', '2026-01-13T03:33:00Z');
    await app.db.systemQuery('UPDATE conversations SET assignee_id = $2 WHERE id = $1', [conversations[0].id, agent]);
    expect((await covered()).stale.length).toBeGreaterThan(3);
    await expectEqual();
    await job.handle();
    expect((await covered()).stale).toEqual([]);
    await expectEqual();
  });

  it('should read everything directly after the SLA target changed, until the job rolled again for the new target', async () => {
    await setSetting(app, tenant, 'sla_target_minutes', '45');
    try {
      await expectEqual();
      await job.handle();
      const [state] = await app.db.systemQuery<{ target_minutes: number }>('SELECT target_minutes FROM analytics_rollup_state WHERE organization_id = $1', [
        tenant.ctx.organizationId,
      ]);
      expect(state.target_minutes).toBe(45);
      await expectEqual();
    } finally {
      await setSetting(app, tenant, 'sla_target_minutes', '60');
    }
  });

  it('should give the same days in time zones off the hour, and for a quarter hour offset', async () => {
    for (const zone of ['Asia/Kathmandu', 'America/St_Johns', 'Asia/Kolkata']) {
      await setSetting(app, tenant, 'time_zone', zone);
      await expectEqual();
    }
    await setSetting(app, tenant, 'time_zone', 'UTC');
  });

  it('should equal the direct statements with business hours, rolled for them, and again after the zone they are read in changed', async () => {
    const hours = JSON.stringify({
      mon: [
        ['08:00', '12:00'],
        ['13:00', '17:30'],
      ],
      tue: [['09:00', '17:00']],
      wed: [['00:00', '24:00']],
      thu: [['09:15', '09:45']],
      sat: [['10:00', '14:00']],
    });
    const schedule = async () =>
      (
        await app.db.systemQuery<{ schedule: string | null }>('SELECT schedule FROM analytics_rollup_state WHERE organization_id = $1', [
          tenant.ctx.organizationId,
        ])
      )[0].schedule;
    // What the 2026-01-10..15 report reads from the rollups under the current settings.
    const rolled = async () => {
      const settings = await reportingSettings((id, keys) => app.app.get(OrganizationSettings).plainMany(id, keys), tenant.ctx.organizationId);
      return app.db.inTenant(
        tenant.ctx,
        async (tx) =>
          (
            await coverage(tx, {
              bounds: [new Date('2026-01-10T00:00:00Z'), new Date('2026-01-16T00:00:00Z')],
              targetMinutes: 60,
              schedule: settings.schedule,
              due: await dueAt(tx, settings, testClock.now(), new Date('2026-01-10T00:00:00Z')),
            })
          ).rs.length,
      );
    };
    await setSetting(app, tenant, 'business_hours', hours);
    try {
      expect(await rolled()).toBe(0);
      await expectEqual();
      await job.handle();
      expect(await schedule()).toBe(JSON.stringify(['UTC', parseBusinessHours(hours)]));
      expect(await rolled()).toBe(1);
      await expectEqual();
      await setSetting(app, tenant, 'time_zone', 'Europe/Berlin');
      expect(await rolled()).toBe(0);
      await expectEqual();
      await job.handle();
      expect(await rolled()).toBe(1);
      await expectEqual();
    } finally {
      await app.app.get(OrganizationService).clearSetting(tenant.ctx.organizationId, 'business_hours');
      await setSetting(app, tenant, 'time_zone', 'UTC');
      await job.handle();
    }
    expect(await schedule()).toBeNull();
  });

  it('should keep other organizations out of the rollups', async () => {
    const other = await createTestTenant(app.app);
    const report = await service.report(other.ctx, 'metrics', parseReportQuery({ start_date: '2026-01-10', end_date: '2026-01-15' }, other.ctx.organizationId));
    expect(report.metrics).toMatchObject({ total_messages: 0, sla_compliance: null });
    const seen = await app.db.inTenant(other.ctx, (tx) => tx.query('SELECT * FROM analytics_message_rollups'));
    expect(seen).toEqual([]);
    await expect(
      app.db.inTenant(other.ctx, (tx) =>
        tx.query("SELECT message_fact_changes_record(ARRAY[$1::uuid], ARRAY[timestamptz '2026-01-01Z'])", [tenant.ctx.organizationId]),
      ),
    ).rejects.toThrow(/permission denied/);
  });

  it('should delete an organization with its messages, recording nothing for it', async () => {
    const gone = await createTestTenant(app.app);
    const g = new Fixtures(app.db, gone.ctx.organizationId);
    await g.message(await g.conversation(await g.contact('2026-01-02T00:00:00Z')), 'INBOUND', '2026-01-02T10:00:00Z');
    await app.db.systemQuery('DELETE FROM organizations WHERE id = $1', [gone.ctx.organizationId]);
    const left = await app.db.systemQuery('SELECT 1 FROM message_fact_changes WHERE organization_id = $1', [gone.ctx.organizationId]);
    expect(left).toEqual([]);
  });
});
