import { randomUUID } from 'node:crypto';
import { OrganizationService } from '@engage/identity';
import { MessageRollups } from '../application/rollup.job';
import { type AnalyticsApp, createTestTenant, Fixtures, memberHeaders, setSetting, startAnalyticsApp, type TestTenant } from '../testing';

// Hand-computed figures (docs/analytics.md). The organization answers within 60 minutes (default);
// now is 2026-01-20T12:00Z. Period 2026-01-10..11 (UTC), previous period 2026-01-08..09.
//   A (assigned, resolved 01-11 13:00): customer 10th 09:00, agent 09:30 (30 min, met);
//     customer 10:00 and 10:20, agent 12:00 (120 and 100 min, missed)
//   B (unassigned, open): customer 11th 23:30, agent 12th 00:15 (45 min, met: the reply is after the period)
//   E (unassigned, open): customer 11th 08:00 never answered (missed, overdue); a broadcast at 08:05
//     and a failed send at 08:10 are not replies
//   D (assigned to an agent later removed): customer 11th 10:00, agent 10:10 (10 min, met)
//   C (previous period, resolved 01-09): customer 9th 10:00, agent 11:00 (60 min, met: exactly the target)
// Current: 11 messages; answered 1800+7200+6000+2700+600 s over 5 = 3660 s = 1.02 h; SLA 3 met of
// 6 = 50 %. Previous: 2 messages, 3600 s, 100 %. Changes: +450 %, +1.67 %, -50 %.
// Contacts: A's 10th, B's 11th (current), C's 8th (previous), D's and E's 1st: +100 %.
describe('GET /rest/v1/analytics/*', () => {
  let app: AnalyticsApp;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    app = await startAnalyticsApp();
    tenant = await createTestTenant(app.app);
    other = await createTestTenant(app.app);
    const f = new Fixtures(app.db, tenant.ctx.organizationId);
    const agent = await memberId(app, tenant, 'AGENT');
    const leaving = await memberId(app, tenant, 'AGENT');
    const a = await f.conversation(await f.contact('2026-01-10T05:00:00Z'), { assignee: agent, status: 'RESOLVED', resolvedAt: '2026-01-11T13:00:00Z' });
    const b = await f.conversation(await f.contact('2026-01-11T06:00:00Z'));
    const c = await f.conversation(await f.contact('2026-01-08T00:00:00Z'), { status: 'RESOLVED', resolvedAt: '2026-01-09T12:00:00Z' });
    const d = await f.conversation(await f.contact('2026-01-01T00:00:00Z'), { assignee: leaving });
    const e = await f.conversation(await f.contact('2026-01-01T00:00:00Z'));
    await f.message(a, 'INBOUND', '2026-01-10T09:00:00Z');
    await f.message(a, 'OUTBOUND', '2026-01-10T09:30:00Z');
    await f.message(a, 'INBOUND', '2026-01-10T10:00:00Z');
    await f.message(a, 'INBOUND', '2026-01-10T10:20:00Z');
    await f.message(a, 'OUTBOUND', '2026-01-10T12:00:00Z');
    await f.message(b, 'INBOUND', '2026-01-11T23:30:00Z');
    await f.message(b, 'OUTBOUND', '2026-01-12T00:15:00Z');
    await f.message(e, 'INBOUND', '2026-01-11T08:00:00Z');
    await f.message(e, 'OUTBOUND', '2026-01-11T08:05:00Z', { origin: 'broadcast', originId: randomUUID() });
    await f.message(e, 'OUTBOUND', '2026-01-11T08:10:00Z', { status: 'FAILED' });
    await f.message(d, 'INBOUND', '2026-01-11T10:00:00Z');
    await f.message(d, 'OUTBOUND', '2026-01-11T10:10:00Z');
    await f.message(c, 'INBOUND', '2026-01-09T10:00:00Z');
    await f.message(c, 'OUTBOUND', '2026-01-09T11:00:00Z');
    // The agent who answered D leaves: the reply still counts, D is unassigned from then on.
    await app.db.systemQuery('DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', [tenant.ctx.organizationId, leaving]);
    const p = await f.pipeline();
    await f.deal(p, p.lead, 'LEAD', 100, '2026-01-05T00:00:00Z');
    await f.deal(p, p.lead, 'LEAD', 250, '2026-01-10T00:00:00Z');
    await f.deal(p, p.won, 'WON', 500, '2026-01-02T00:00:00Z', '2026-01-10T10:00:00Z');
    await f.deal(p, p.lost, 'LOST', 50, '2026-01-03T00:00:00Z', '2026-01-11T10:00:00Z');
    await f.deal(p, p.won, 'WON', 70, '2026-01-04T00:00:00Z', '2026-01-05T00:00:00Z');
    await f.deal(p, p.won, 'WON', 30, '2026-01-11T12:00:00Z');
    await f.deal(p, p.lead, 'LEAD', 999, '2026-01-15T00:00:00Z');
    // The figures below are read from the rollups (and the changes made after them, directly).
    await app.app.get(MessageRollups).handle();
  });
  afterAll(() => app.close());

  const get = (path: string, headers: Record<string, string> = tenant.session) => app.app.inject({ method: 'GET', url: `/rest/v1/analytics/${path}`, headers });
  const PERIOD = 'start_date=2026-01-10&end_date=2026-01-11';

  it('should compute the metrics and their comparison with the previous period', async () => {
    const res = await get(`metrics?organization_id=${tenant.ctx.organizationId}&${PERIOD}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      metrics: {
        total_messages: 11,
        average_response_time: '1.02',
        sla_compliance: 50,
        total_contacts: 2,
        period_comparison: { messages_change: 450, response_time_change: 1.67, sla_change: -50, contacts_change: 100 },
      },
    });
  });

  it('should compute the inbox figures, counting the removed agent reply and the reply after the period', async () => {
    const res = await get(`inbox?${PERIOD}`);
    expect(res.json()).toEqual({
      inbox_metrics: { average_response_time: '1.02', sla_compliance: 50, resolved_conversations: 1, unassigned_messages: 3, overdue_conversations: 1 },
    });
  });

  it('should compute the deal figures: open deals, pipeline value, won / closed in the period, deals by stage', async () => {
    const res = await get(`deals?${PERIOD}`, tenant.key);
    expect(res.json()).toEqual({
      deals_metrics: { active_deals_count: 2, pipeline_value: 350, conversion_rate: 66.67, stage_distribution: { Lead: 2, Won: 3, Lost: 1 } },
    });
  });

  it('should give daily series with group_by=day', async () => {
    const res = await get(`metrics?${PERIOD}&group_by=day`);
    expect(res.json().series).toEqual([
      { date: '2026-01-10', total_messages: 5, average_response_time: '1.39', sla_compliance: 33.33, total_contacts: 1 },
      { date: '2026-01-11', total_messages: 6, average_response_time: '0.46', sla_compliance: 66.67, total_contacts: 1 },
    ]);
    const deals = (await get(`deals?${PERIOD}&group_by=day`)).json().series;
    expect(deals).toEqual([
      { date: '2026-01-10', new_deals: 1, deals_won: 1, deals_lost: 0, won_value: 500, conversion_rate: 100 },
      { date: '2026-01-11', new_deals: 1, deals_won: 1, deals_lost: 1, won_value: 30, conversion_rate: 50 },
    ]);
    const inbox = (await get(`inbox?${PERIOD}&group_by=day`)).json().series;
    type Day = { resolved_conversations: number; unassigned_messages: number };
    expect(inbox.map((day: Day) => [day.resolved_conversations, day.unassigned_messages])).toEqual([
      [0, 0],
      [1, 3],
    ]);
  });

  it('should answer null comparisons for an empty previous period, and no response time without replies', async () => {
    const empty = (await get('metrics?start_date=2026-01-08&end_date=2026-01-09')).json().metrics;
    expect(empty.period_comparison).toEqual({ messages_change: null, response_time_change: null, sla_change: null, contacts_change: null });
    const unanswered = (await get('metrics?start_date=2026-01-11T07:00:00Z&end_date=2026-01-11T08:01:00Z')).json().metrics;
    expect(unanswered).toMatchObject({ total_messages: 1, average_response_time: null, sla_compliance: 0 });
  });

  it('should move a reply that fails to the next one, and find a reply stored before the message it answers', async () => {
    const f = new Fixtures(app.db, tenant.ctx.organizationId);
    const g = await f.conversation(await f.contact('2025-01-01T00:00:00Z'));
    await f.message(g, 'INBOUND', '2025-06-01T10:00:00Z');
    const failing = await f.message(g, 'OUTBOUND', '2025-06-01T10:05:00Z', { status: 'PENDING' });
    await f.message(g, 'OUTBOUND', '2025-06-01T10:30:00Z');
    const day = () => get('metrics?start_date=2025-06-01&end_date=2025-06-01');
    expect((await day()).json().metrics.average_response_time).toBe('0.08');
    await app.db.systemQuery(`UPDATE messages SET status = 'FAILED' WHERE id = $1`, [failing]);
    expect((await day()).json().metrics.average_response_time).toBe('0.50');
    // An agent message stored first, then the customer message it answers (stored late, timed earlier).
    await f.message(g, 'OUTBOUND', '2025-06-02T11:00:00Z');
    await f.message(g, 'INBOUND', '2025-06-02T10:00:00Z');
    expect((await get('metrics?start_date=2025-06-02&end_date=2025-06-02')).json().metrics.average_response_time).toBe('1.00');
  });

  it('should count what people wrote as agent replies (inbox, API, queued, scheduled), never automated messages', async () => {
    const f = new Fixtures(app.db, tenant.ctx.organizationId);
    const h = await f.conversation(await f.contact('2025-01-01T00:00:00Z'), { createdAt: '2025-07-01T09:00:00Z' });
    await f.message(h, 'INBOUND', '2025-07-01T10:00:00Z');
    for (const [i, origin] of ['reengagement', 'rule', 'bot', 'sequence', 'broadcast'].entries()) {
      await f.message(h, 'OUTBOUND', `2025-07-01T10:0${i + 1}:00Z`, { origin, originId: randomUUID() });
    }
    const day = (date: string) => get(`metrics?start_date=${date}&end_date=${date}`);
    // Only automated messages so far: unanswered, and missed once the target has passed.
    expect((await day('2025-07-01')).json().metrics).toMatchObject({ total_messages: 6, average_response_time: null, sla_compliance: 0 });
    await f.message(h, 'OUTBOUND', '2025-07-01T10:30:00Z', { origin: 'api' });
    expect((await day('2025-07-01')).json().metrics).toMatchObject({ average_response_time: '0.50', sla_compliance: 100 });
    // A later customer message answered by a scheduled send, one by a queued API send, one by an agent.
    const answers: [string, string, string, string | undefined][] = [
      ['2025-07-02', '09:15', 'scheduled', randomUUID()],
      ['2025-07-03', '09:30', 'api_queued', undefined],
      ['2025-07-04', '09:45', 'agent', undefined],
    ];
    for (const [date, at, origin, originId] of answers) {
      await f.message(h, 'INBOUND', `${date}T09:00:00Z`);
      await f.message(h, 'OUTBOUND', `${date}T09:00:30Z`, { origin: 'reengagement', originId: randomUUID() });
      await f.message(h, 'OUTBOUND', `${date}T${at}:00Z`, { origin, originId });
    }
    expect((await day('2025-07-02')).json().metrics.average_response_time).toBe('0.25');
    expect((await day('2025-07-03')).json().metrics.average_response_time).toBe('0.50');
    expect((await day('2025-07-04')).json().metrics.average_response_time).toBe('0.75');
    // The conversation's row counts 4 customer messages and the 4 messages people wrote, not the 8 automated ones.
    const csv = { ...tenant.session, accept: 'text/csv' };
    const detail = (await get('inbox?start_date=2025-07-01&end_date=2025-07-04&detail=conversations', csv)).body.trim().split('\r\n');
    const row = detail.find((line) => line.startsWith(h.id))!.split(',');
    expect([row[6], row[7]]).toEqual(['4', '4']);
  });

  it("should read dates in the organization's time zone", async () => {
    const utc = (await get('metrics?start_date=2026-01-12&end_date=2026-01-12')).json().metrics;
    expect(utc.total_messages).toBe(1);
    await setSetting(app, tenant, 'time_zone', 'Africa/Cairo');
    try {
      // Cairo is UTC+2: its 12th runs from 11th 22:00Z, taking in B's 23:30 message and its reply.
      const cairo = (await get('metrics?start_date=2026-01-12&end_date=2026-01-12')).json().metrics;
      expect(cairo).toMatchObject({ total_messages: 2, average_response_time: '0.75', sla_compliance: 100 });
      // Local wall-clock times: 00:00 to 02:00 in Cairo is 22:00Z to 00:00Z, B's customer message only.
      const local = (await get('metrics?start_date=2026-01-12T00:00:00&end_date=2026-01-12T02:00:00')).json().metrics;
      expect(local.total_messages).toBe(1);
    } finally {
      await setSetting(app, tenant, 'time_zone', 'UTC');
    }
  });

  it('should follow the organization response target', async () => {
    await setSetting(app, tenant, 'sla_target_minutes', '120');
    try {
      // Within 2 h: 30, 120, 100, 45 and 10 minutes; only the unanswered one misses.
      expect((await get(`metrics?${PERIOD}`)).json().metrics.sla_compliance).toBe(83.33);
    } finally {
      await setSetting(app, tenant, 'sla_target_minutes', '60');
    }
  });

  it('should refuse bad time zone and target settings', async () => {
    await expect(setSetting(app, tenant, 'time_zone', 'Mars/Olympus')).rejects.toThrow(/not a known time zone/);
    await expect(setSetting(app, tenant, 'sla_target_minutes', '0')).rejects.toThrow(/whole number of minutes/);
  });

  it('should show another organization nothing of this one, and refuse its id with 403', async () => {
    const res = await get(`metrics?${PERIOD}`, other.session);
    expect(res.json().metrics).toMatchObject({ total_messages: 0, total_contacts: 0, average_response_time: null, sla_compliance: null });
    const forbidden = await get(`metrics?organization_id=${tenant.ctx.organizationId}`, other.session);
    expect(forbidden.statusCode).toBe(403);
    expect((await get(`inbox?organization_id=eq.${other.ctx.organizationId}`, other.key)).statusCode).toBe(200);
  });

  it('should let any member read them and refuse anonymous callers', async () => {
    const agent = await memberHeaders(app.app, tenant, 'AGENT');
    expect((await get(`inbox?${PERIOD}`, agent)).json().inbox_metrics.sla_compliance).toBe(50);
    expect((await get('inbox', {})).statusCode).toBe(401);
  });

  it.each([
    ['metrics?start_date=2026-13-01', 'start_date'],
    ['metrics?start_date=yesterday', 'start_date'],
    ['inbox?end_date=2026-02-30', 'end_date'],
    ['deals?start_date=2026-01-11&end_date=2026-01-10', 'end_date'],
    ['metrics?start_date=2023-01-01&end_date=2026-01-10', 'end_date'],
    ['metrics?metric_type=revenue', 'metric_type'],
    ['metrics?group_by=week', 'group_by'],
    ['metrics?organization_id=nope', 'organization_id'],
    ['metrics?select=*', 'select'],
    ['metrics?start_date=2026-01-01&start_date=2026-01-02', 'start_date'],
    ['metrics?start_date=2026-01-01T25:00:00Z', 'start_date'],
    ['inbox?detail=conversations', 'detail'],
  ])('should refuse %s with a 400 naming %s', async (path, name) => {
    const res = await get(path);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(name);
  });

  it('should stream CSV: one row per day, or one row per conversation', async () => {
    const csv = { ...tenant.session, accept: 'text/csv' };
    const daily = await get(`metrics?${PERIOD}`, csv);
    expect(daily.headers['content-type']).toContain('text/csv');
    expect(daily.body).toBe(
      'date,total_messages,average_response_time,sla_compliance,total_contacts\r\n2026-01-10,5,1.39,33.33,1\r\n2026-01-11,6,0.46,66.67,1\r\n',
    );
    expect((await get(`metrics?${PERIOD}&metric_type=sla`, csv)).body).toBe('date,sla_compliance\r\n2026-01-10,33.33\r\n2026-01-11,66.67\r\n');
    const detail = (await get(`inbox?${PERIOD}&detail=conversations`, csv)).body.trim().split('\r\n');
    expect(detail[0]).toBe(
      'conversation_id,channel_kind,status,assignee_id,created_at,resolved_at,customer_messages,agent_messages,' + 'average_response_time,sla_met,sla_missed',
    );
    // A, B, D and E had messages in the period; C did not.
    expect(detail.length).toBe(5);
    const rows = detail.slice(1).map((line) => line.split(','));
    expect(rows.map((row) => [row[6], row[7], row[8], row[9], row[10]]).sort()).toEqual([
      ['1', '0', '', '0', '1'],
      ['1', '0', '0.75', '1', '0'],
      ['1', '1', '0.17', '1', '0'],
      ['3', '2', '1.39', '1', '2'],
    ]);
  });
});

async function memberId(app: AnalyticsApp, tenant: TestTenant, role: 'AGENT') {
  const email = `agent.${randomUUID()}@example.com`;
  const created = await app.app.get(OrganizationService).createUser({ organizationId: tenant.ctx.organizationId, email, password: 'agent password 1', role });
  return created.user_id;
}
