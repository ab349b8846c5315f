import { type AnalyticsApp, createTestTenant, Fixtures, memberHeaders, setSetting, startAnalyticsApp, type TestTenant, testClock } from '../testing';

// Now is Tuesday 2026-01-20 12:00Z (UTC organization, 60-minute target); this week began Monday the 19th.
//   X (open): customer 20th 08:00, unanswered (missed)
//   Y (resolved): customer 19th 10:00, agent 10:30 (1800 s, met); customer 5th 10:00, agent 12:00 (7200 s, missed)
//   contacts: X's 20th 01:00, Y's 2025-12-31; deals: open 100 (10th) and 200 (15th), won 500 (closed 19th),
//   won 50 (closed 2025-12-20)
describe('/rest/v1/dashboard_widgets', () => {
  let app: AnalyticsApp;
  let tenant: TestTenant;
  const NOW = new Date('2026-01-20T12:00:00Z');

  beforeAll(async () => {
    app = await startAnalyticsApp();
    tenant = await createTestTenant(app.app);
    const f = new Fixtures(app.db, tenant.ctx.organizationId);
    const x = await f.conversation(await f.contact('2026-01-20T01:00:00Z'));
    const y = await f.conversation(await f.contact('2025-12-31T00:00:00Z'), { status: 'RESOLVED', resolvedAt: '2026-01-19T11:00:00Z' });
    await f.message(x, 'INBOUND', '2026-01-20T08:00:00Z');
    await f.message(y, 'INBOUND', '2026-01-05T10:00:00Z');
    await f.message(y, 'OUTBOUND', '2026-01-05T12:00:00Z');
    await f.message(y, 'INBOUND', '2026-01-19T10:00:00Z');
    await f.message(y, 'OUTBOUND', '2026-01-19T10:30:00Z');
    const p = await f.pipeline();
    await f.deal(p, p.lead, 'LEAD', 100, '2026-01-10T00:00:00Z');
    await f.deal(p, p.lead, 'LEAD', 200, '2026-01-15T00:00:00Z');
    await f.deal(p, p.won, 'WON', 500, '2026-01-02T00:00:00Z', '2026-01-19T09:00:00Z');
    await f.deal(p, p.won, 'WON', 50, '2025-12-01T00:00:00Z', '2025-12-20T09:00:00Z');
  });
  beforeEach(() => {
    testClock.at = NOW;
  });
  afterAll(() => app.close());

  const list = (headers: Record<string, string>, query = '') => app.app.inject({ method: 'GET', url: `/rest/v1/dashboard_widgets${query}`, headers });
  const post = (headers: Record<string, string>, payload: object) =>
    app.app.inject({ method: 'POST', url: '/rest/v1/dashboard_widgets', headers: { ...headers, prefer: 'return=representation' }, payload });
  const custom = (widget_config: object) => ({ widget_type: 'custom', widget_config, position: 20 });
  // A member with one custom widget: its computed value.
  async function valueOf(headers: Record<string, string>, config: object): Promise<unknown> {
    const created = await post(headers, custom(config));
    expect(created.statusCode).toBe(201);
    const id = created.json()[0].id;
    const widget = (await list(headers)).json().widgets.find((w: { id: string }) => w.id === id);
    await app.app.inject({ method: 'DELETE', url: `/rest/v1/dashboard_widgets?id=eq.${id}`, headers });
    return widget.value;
  }

  it('should start a new member from the default set, with values computed on read', async () => {
    const res = await list(tenant.session, `?organization_id=eq.${tenant.ctx.organizationId}`);
    expect(res.statusCode).toBe(200);
    const widgets = res.json().widgets;
    expect(widgets.map((w: { widget_type: string; value: number; position: number }) => [w.widget_type, w.value, w.position])).toEqual([
      ['incoming_messages', 1, 0],
      ['open_conversations', 1, 1],
      ['response_time', 1800, 2],
      ['sla', 50, 3],
      ['pipeline_value', 300, 4],
      ['deals_won', 1, 5],
      ['new_contacts', 1, 6],
    ]);
    expect(widgets[2]).toMatchObject({ widget_config: { title: 'Response time', format: 'Time Duration', date_range: 'This Week' }, is_visible: true });
    expect(widgets[0].user_id).toBe(tenant.ctx.userId);
  });

  it('should aggregate with Count, Sum, Average, Min and Max in every format', async () => {
    const h = await memberHeaders(app.app, tenant, 'AGENT');
    const month = { date_range: 'This Month' };
    expect(await valueOf(h, { ...month, title: 'In', table: 'messages', query: 'direction=eq.INBOUND', aggregation: 'Count', format: 'Number' })).toBe(3);
    const won = { title: 'Won', table: 'deals', query: 'outcome=eq.won', aggregation: 'Sum', column: 'value', date_column: 'closed_at', format: 'Currency' };
    expect(await valueOf(h, { ...month, ...won })).toBe(500);
    const average = { title: 'Avg', table: 'deals', query: 'outcome=eq.open', aggregation: 'Average', column: 'value', format: 'Currency' };
    expect(await valueOf(h, { ...month, ...average })).toBe(150);
    const times = { ...month, table: 'messages', query: 'direction=eq.INBOUND', column: 'response_seconds', format: 'Time Duration' };
    expect(await valueOf(h, { ...times, aggregation: 'Min' })).toBe(1800);
    expect(await valueOf(h, { ...times, aggregation: 'Max' })).toBe(7200);
    expect(await valueOf(h, { ...month, table: 'messages', aggregation: 'Average', column: 'sla_met_percent', format: 'Percentage' })).toBe(33.33);
    expect(await valueOf(h, { table: 'deals', aggregation: 'Sum', column: 'value', query: 'outcome=eq.lost', format: 'Currency' })).toBe(0);
    expect(await valueOf(h, { table: 'conversations', query: 'or=(status.eq.RESOLVED,assignee_id.not.is.null)', date_range: 'This Month' })).toBe(1);
    // Filter values are only ever parameters: this one matches nothing and runs nothing.
    expect(await valueOf(h, { table: 'messages', query: 'direction=eq.INBOUND);DROP TABLE messages;--', date_range: 'This Month' })).toBe(0);
    expect(await valueOf(h, { table: 'messages', query: 'direction=eq.INBOUND', date_range: 'This Month' })).toBe(3);
  });

  it('should evaluate each date range at the injected clock, in the organization time zone', async () => {
    const h = await memberHeaders(app.app, tenant, 'AGENT');
    const inbound = (extra: object) => valueOf(h, { table: 'messages', query: 'direction=eq.INBOUND', ...extra });
    expect(await inbound({ date_range: 'Today' })).toBe(1);
    expect(await inbound({ date_range: 'Yesterday' })).toBe(1);
    expect(await inbound({ date_range: 'This Week' })).toBe(2);
    expect(await inbound({ date_range: 'This Month' })).toBe(3);
    expect(await inbound({ date_range: 'Custom Range', start_date: '2026-01-05', end_date: '2026-01-05' })).toBe(1);
    const wonLastYear = {
      table: 'deals',
      query: 'outcome=eq.won',
      date_column: 'closed_at',
      date_range: 'Custom Range',
      start_date: '2025-12-01',
      end_date: '2025-12-31',
    };
    expect(await valueOf(h, wonLastYear)).toBe(1);
    testClock.at = new Date('2026-01-26T00:30:00Z');
    expect(await inbound({ date_range: 'This Week' })).toBe(0);
    expect(await inbound({ date_range: 'Yesterday' })).toBe(0);
    await setSetting(app, tenant, 'time_zone', 'America/New_York');
    try {
      // 2026-01-25 19:30 in New York: still Sunday of the week of the 19th.
      expect(await inbound({ date_range: 'This Week' })).toBe(2);
      testClock.at = new Date('2026-01-20T03:00:00Z');
      // New York's "today" is the 19th (from 05:00Z), so yesterday is the 18th: nothing.
      expect(await inbound({ date_range: 'Today' })).toBe(1);
      expect(await inbound({ date_range: 'Yesterday' })).toBe(0);
    } finally {
      await setSetting(app, tenant, 'time_zone', 'UTC');
    }
  });

  it("should keep each member's dashboard their own", async () => {
    const first = await memberHeaders(app.app, tenant, 'AGENT');
    const second = await memberHeaders(app.app, tenant, 'ADMIN');
    const mine = (await post(first, custom({ title: 'Mine', table: 'contacts' }))).json()[0];
    const theirs = (await list(second)).json().widgets;
    expect(theirs.some((w: { id: string }) => w.id === mine.id)).toBe(false);
    expect(theirs).toHaveLength(7);
    const hide = (headers: Record<string, string>) =>
      app.app.inject({ method: 'PATCH', url: `/rest/v1/dashboard_widgets?id=eq.${mine.id}`, headers, payload: { is_visible: false } });
    const patched = await hide(second);
    expect(patched.statusCode).toBe(204);
    const hidden = await hide(first);
    expect(hidden.statusCode).toBe(204);
    expect((await list(first, '?is_visible=eq.false')).json().widgets.map((w: { id: string }) => w.id)).toEqual([mine.id]);
    expect((await list(first, '?is_visible=true')).json().widgets).toHaveLength(7);
    // Every widget removed stays removed: the defaults come once.
    await app.app.inject({ method: 'DELETE', url: '/rest/v1/dashboard_widgets?id=not.is.null', headers: second });
    expect((await list(second)).json().widgets).toEqual([]);
  });

  it.each([
    [custom({ table: 'users' }), 'users'],
    [custom({ table: 'messages', query: 'password_hash=eq.x' }), 'password_hash'],
    // Declared hidden by messaging: the data API does not serve it, so no widget reads it.
    [custom({ table: 'messages', column: 'email_message_id' }), 'email_message_id'],
    [custom({ table: 'deals', aggregation: 'Sum', column: 'stage_name' }), 'stage_name'],
    [custom({ table: 'deals', aggregation: 'Sum' }), 'column'],
    [custom({ table: 'messages', query: 'select=id' }), 'select'],
    [custom({ table: 'messages', query: 'direction=zz.INBOUND' }), 'widget_config.query'],
    [custom({ table: 'messages', query: '%zz=eq.1' }), 'widget_config.query'],
    [custom({ table: 'messages', query: 'conversations.status=eq.OPEN' }), 'widget_config.query'],
    [custom({ table: 'deals', query: 'value=gt.lots' }), 'widget_config.query'],
    [custom({ table: 'messages', aggregation: 'Median' }), 'aggregation'],
    [custom({ table: 'messages', format: 'Roman' }), 'format'],
    [custom({ table: 'messages', date_range: 'Custom Range' }), 'start_date'],
    [custom({ table: 'messages', date_range: 'Custom Range', start_date: '2026-01-02', end_date: '2026-01-01' }), 'end_date'],
    [custom({ table: 'messages', sql: 'DROP TABLE messages' }), 'sql'],
    [{ widget_type: 'incoming_messages', widget_config: { table: 'deals' } }, 'table'],
    [{ widget_type: 'pie', widget_config: {} }, 'widget_type'],
    [{ widget_type: 'sla', widget_config: {}, position: -1 }, 'position'],
    [{ widget_type: 'sla', widget_config: [] }, 'widget_config'],
  ])('should refuse %j with a 400 naming %s', async (body, name) => {
    const res = await post(tenant.session, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(name);
  });

  it('should refuse another organization, bad list parameters, and API keys', async () => {
    const other = await createTestTenant(app.app);
    expect((await list(tenant.session, `?organization_id=eq.${other.ctx.organizationId}`)).statusCode).toBe(403);
    expect((await list(tenant.session, '?is_visible=maybe')).statusCode).toBe(400);
    expect((await list(tenant.session, '?position=eq.1')).statusCode).toBe(400);
    expect((await list(tenant.key)).statusCode).toBe(401);
    expect((await post(tenant.key, { widget_type: 'sla' })).statusCode).toBe(401);
    expect((await list(other.session)).json().widgets.every((w: { organization_id: string }) => w.organization_id === other.ctx.organizationId)).toBe(true);
  });
});
