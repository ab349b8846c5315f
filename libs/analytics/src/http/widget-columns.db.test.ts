import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';
import { type AnalyticsApp, createTestTenant, Fixtures, memberHeaders, startAnalyticsApp, type TestTenant, testClock } from '../testing';

// Now is Tuesday 2026-01-20 12:00Z (UTC organization); every row below is of this month.
//   contacts: A (tags vip, phone +201001234567), B (tags vip and cs), C (no tags)
//   conversations: A's (3 unread) with a customer message "I want a refund", B's (4 unread, resolved) with "hello"
//   deals: open 100 (tags big, probability 20), open 200 (probability 60), won 500 (tags big, probability 100, closed the 19th)
describe('dashboard widgets over the columns the data API serves', () => {
  let app: AnalyticsApp;
  let tenant: TestTenant;
  let f: Fixtures;
  const NOW = new Date('2026-01-20T12:00:00Z');
  const WIDGET_TABLES = ['messages', 'conversations', 'deals', 'contacts'];

  const set = (table: string, id: string, values: Record<string, unknown>) => {
    const assignments = Object.keys(values)
      .map((key, i) => `${key} = $${i + 2}`)
      .join(', ');
    return app.db.systemQuery(`UPDATE ${table} SET ${assignments} WHERE id = $1`, [id, ...Object.values(values)]);
  };

  beforeAll(async () => {
    app = await startAnalyticsApp();
    tenant = await createTestTenant(app.app);
    f = new Fixtures(app.db, tenant.ctx.organizationId);
    const [a, b] = [await f.contact('2026-01-10T00:00:00Z'), await f.contact('2026-01-11T00:00:00Z'), await f.contact('2026-01-12T00:00:00Z')];
    await set('contacts', a, { tags: ['vip'], phones: ['+201001234567'] });
    await set('contacts', b, { tags: ['vip', 'cs'] });
    const x = await f.conversation(a, { createdAt: '2026-01-15T00:00:00Z' });
    const y = await f.conversation(b, { createdAt: '2026-01-16T00:00:00Z', status: 'RESOLVED', resolvedAt: '2026-01-17T00:00:00Z' });
    await set('conversations', x.id, { unread_count: 3 });
    await set('conversations', y.id, { unread_count: 4 });
    await set('messages', await f.message(x, 'INBOUND', '2026-01-15T09:00:00Z'), { content: 'I want a refund' });
    await set('messages', await f.message(y, 'INBOUND', '2026-01-16T09:00:00Z'), { content: 'hello' });
    const p = await f.pipeline();
    await set('deals', await f.deal(p, p.lead, 'LEAD', 100, '2026-01-05T00:00:00Z'), { tags: ['big'], probability: 20 });
    await set('deals', await f.deal(p, p.lead, 'LEAD', 200, '2026-01-06T00:00:00Z'), { probability: 60 });
    await set('deals', await f.deal(p, p.won, 'WON', 500, '2026-01-02T00:00:00Z', '2026-01-19T09:00:00Z'), { tags: ['big'], probability: 100 });
  });
  beforeEach(() => {
    testClock.at = NOW;
  });
  afterAll(() => app.close());

  const list = (headers: Record<string, string>) => app.app.inject({ method: 'GET', url: '/rest/v1/dashboard_widgets', headers });
  const post = (headers: Record<string, string>, payload: object) =>
    app.app.inject({ method: 'POST', url: '/rest/v1/dashboard_widgets', headers: { ...headers, prefer: 'return=representation' }, payload });
  const custom = (widget_config: object) => ({ widget_type: 'custom', widget_config });
  async function valueOf(config: object): Promise<unknown> {
    const created = await post(tenant.session, custom(config));
    expect([config, created.statusCode, created.json().message]).toEqual([config, 201, undefined]);
    const widget = (await list(tenant.session)).json().widgets.find((w: { id: string }) => w.id === created.json()[0].id);
    await app.app.inject({ method: 'DELETE', url: `/rest/v1/dashboard_widgets?id=eq.${widget.id}`, headers: tenant.session });
    expect(widget.error).toBeNull();
    return widget.value;
  }

  it("should count contacts by their tags (the issue's widget)", async () => {
    expect(await valueOf({ table: 'contacts', aggregation: 'Count', query: 'tags=cs.{vip}' })).toBe(2);
    expect(await valueOf({ table: 'contacts', query: 'tags=ov.{cs,none}' })).toBe(1);
  });

  it('should read a column only the data API serves on each widget table, alone and with a derived one', async () => {
    expect(await valueOf({ table: 'messages', query: 'content=ilike.*refund*' })).toBe(1);
    expect(await valueOf({ table: 'messages', query: 'sender_type=eq.customer&or=(content.ilike.*refund*,content.eq.hello)' })).toBe(2);
    expect(await valueOf({ table: 'conversations', aggregation: 'Sum', column: 'unread_count' })).toBe(7);
    expect(await valueOf({ table: 'conversations', aggregation: 'Sum', column: 'unread_count', query: 'resolved_at=is.null' })).toBe(3);
    expect(await valueOf({ table: 'deals', aggregation: 'Average', column: 'probability' })).toBe(60);
    expect(await valueOf({ table: 'deals', aggregation: 'Average', column: 'probability', query: 'tags=cs.{big}&outcome=eq.open' })).toBe(20);
    expect(await valueOf({ table: 'deals', aggregation: 'Sum', column: 'value', query: 'tags=cs.{big}&outcome=eq.won', date_column: 'closed_at' })).toBe(500);
    // Values are normalised as the data API normalises them: a phone is searched in its stored form.
    expect(await valueOf({ table: 'contacts', query: 'phones=cs.{%2B20 100 123 4567}' })).toBe(1);
  });

  it('should let a widget filter and count by every column the data API serves for its table', async () => {
    const registry = app.app.get<Registry>(DATA_API_REGISTRY);
    const h = await memberHeaders(app.app, tenant, 'AGENT');
    const created: string[] = [];
    for (const table of WIDGET_TABLES) {
      for (const column of registry.tables.get(table)!.readable) {
        const res = await post(h, custom({ table, aggregation: 'Count', column, query: `${column}=not.is.null` }));
        expect([table, column, res.statusCode]).toEqual([table, column, 201]);
        created.push(res.json()[0].id);
      }
    }
    const widgets = (await list(h)).json().widgets.filter((w: { id: string }) => created.includes(w.id));
    expect(widgets).toHaveLength(created.length);
    for (const w of widgets) expect([w.widget_config, w.error, typeof w.value]).toEqual([w.widget_config, null, 'number']);
  });

  it.each([
    ['messages', 'content=match.(', 'invalid regular expression'],
    ['messages', 'content=imatch.[a', 'invalid regular expression'],
    ['messages', 'content=match(any).{ok,(}', 'invalid regular expression'],
    ['conversations', 'or=(status.eq.OPEN,email_subject.match.*x)', 'invalid regular expression'],
    ['messages', 'content=eq.%00', 'NUL'],
    ['contacts', 'custom_fields->>a%00=eq.1', 'NUL'],
    ['messages', 'content=fts.a %26', 'cannot run'],
    ['messages', 'content=fts(no_such_config).a', 'cannot run'],
    ['messages', 'content=like.refund%5C', 'escape character'],
    ['deals', 'value=gt.1e999999', 'cannot run'],
  ])('should refuse, when saved, a %s widget whose query %j cannot run, naming the problem (%s)', async (table, query, problem) => {
    // A new organization without a row: a pattern is refused whether or not a row would reach it.
    const empty = await createTestTenant(app.app);
    for (const headers of [empty.session, tenant.session]) {
      const res = await post(headers, custom({ table, query }));
      expect([res.statusCode, res.json().message]).toEqual([400, expect.stringContaining(problem)]);
      expect(res.json().message).toContain('widget_config.query');
    }
  });

  it('should refuse a NUL character in any text of the config', async () => {
    const res = await post(tenant.session, custom({ table: 'contacts', title: 'a\u0000b' }));
    expect([res.statusCode, res.json().message]).toEqual([400, expect.stringContaining('widget_config.title')]);
  });

  it('should answer 200 with a null value and its error for a stored widget that fails when read', async () => {
    const h = await memberHeaders(app.app, tenant, 'AGENT');
    const member = (await list(h)).json().widgets[0].user_id;
    // Stored before widgets were checked when saved: an invalid regular expression a row reaches, a NUL byte.
    const stored = [
      { table: 'messages', query: 'content=match.(' },
      { table: 'messages', query: 'content=eq.%00' },
    ];
    for (const [i, config] of stored.entries()) {
      await app.db.systemQuery(
        `INSERT INTO dashboard_widgets (organization_id, user_id, widget_type, widget_config, position) VALUES ($1, $2, 'custom', $3, $4)`,
        [tenant.ctx.organizationId, member, JSON.stringify({ title: 'Old', format: 'Number', date_range: 'This Month', ...config }), 100 + i],
      );
    }
    const res = await list(h);
    expect(res.statusCode).toBe(200);
    const widgets = res.json().widgets;
    expect(widgets.slice(-2).map((w: { value: unknown; error: unknown }) => [w.value, w.error])).toEqual([
      [null, { code: '2201B', message: expect.stringContaining('invalid regular expression') }],
      [null, { code: 'widget.invalid_config', message: expect.stringContaining('NUL') }],
    ]);
    // The others keep their values (the default set: no customer message today or this week, A's conversation open...).
    expect(widgets.slice(0, 7).map((w: { widget_type: string; value: unknown; error: unknown }) => [w.widget_type, w.value, w.error])).toEqual([
      ['incoming_messages', 0, null],
      ['open_conversations', 1, null],
      ['response_time', null, null],
      ['sla', null, null],
      ['pipeline_value', 300, null],
      ['deals_won', 1, null],
      ['new_contacts', 3, null],
    ]);
  });

  const contacts = custom({ table: 'contacts' });
  const STRANGER = '00000000-0000-4000-8000-000000000000';
  it.each([
    ['no widget_type', {}, 400, 'widget_type'],
    ['a number for widget_type', { widget_type: 7 }, 400, 'widget_type'],
    ['a string for widget_config', { widget_type: 'custom', widget_config: 'contacts' }, 400, 'widget_config'],
    ['a title of 101 characters', custom({ table: 'contacts', title: 'x'.repeat(101) }), 400, 'title'],
    ['a query of 2014 characters', custom({ table: 'contacts', query: `first_name=eq.${'x'.repeat(2000)}` }), 400, 'query'],
    ['a table name of 5000 characters', custom({ table: 'x'.repeat(5000) }), 400, 'table'],
    ['a list for column', custom({ table: 'contacts', column: ['tags'] }), 400, 'column'],
    ['a string for position', { ...contacts, position: 'first' }, 400, 'position'],
    ['a string for is_visible', { ...contacts, is_visible: 'yes' }, 400, 'is_visible'],
    ['a number for organization_id', { ...contacts, organization_id: 42 }, 400, 'organization_id'],
    ["another organization's id", { ...contacts, organization_id: STRANGER }, 403, 'organization_id'],
    ["another member's id", { ...contacts, user_id: STRANGER }, 403, 'user_id'],
    ['an unknown field', { ...contacts, colour: 'red' }, 400, 'colour'],
  ])('should answer a widget with %s with %i naming it', async (_, body, status, name) => {
    const res = await post(tenant.session, body);
    expect([res.statusCode, res.json().message]).toEqual([status, expect.stringContaining(name)]);
    expect(res.json().message.length).toBeLessThan(300);
  });

  it("should leave another organization's widgets alone, and refuse a bad id or config on update", async () => {
    const other = await createTestTenant(app.app);
    const theirs = (await list(other.session)).json().widgets[0];
    const patch = (query: string, payload: object) =>
      app.app.inject({ method: 'PATCH', url: `/rest/v1/dashboard_widgets?${query}`, headers: tenant.session, payload });
    expect((await patch(`id=eq.${theirs.id}`, { position: 9 })).statusCode).toBe(204);
    const removed = await app.app.inject({ method: 'DELETE', url: `/rest/v1/dashboard_widgets?id=eq.${theirs.id}`, headers: tenant.session });
    expect(removed.statusCode).toBe(204);
    expect((await list(other.session)).json().widgets[0]).toMatchObject({ id: theirs.id, position: theirs.position });
    expect((await patch('id=eq.not-a-uuid', { position: 9 })).statusCode).toBe(400);
    const mine = (await post(tenant.session, custom({ table: 'contacts', query: 'tags=cs.{vip}' }))).json()[0];
    const bad = await patch(`id=eq.${mine.id}`, { widget_config: { table: 'contacts', query: 'first_name=match.(' } });
    expect([bad.statusCode, bad.json().message]).toEqual([400, expect.stringContaining('invalid regular expression')]);
    expect((await patch(`id=eq.${mine.id}`, { organization_id: other.ctx.organizationId })).statusCode).toBe(403);
    const kept = (await list(tenant.session)).json().widgets.find((w: { id: string }) => w.id === mine.id);
    expect([kept.widget_config.query, kept.organization_id, kept.value]).toEqual(['tags=cs.{vip}', tenant.ctx.organizationId, 2]);
  });
});
