import { type AnalyticsApp, createTestTenant, Fixtures, memberHeaders, setSetting, startAnalyticsApp, type TestTenant, testClock } from '../testing';

// ANALYTICS_WIDGET_CACHE_SECONDS=15: a value computed for an organization is served again to its
// members until 15 s have passed on the service's clock; another organization's never.
describe('dashboard widget values, served again for a few seconds', () => {
  let app: AnalyticsApp;
  let a: TestTenant;
  let b: TestTenant;
  const NOW = new Date('2026-01-20T12:00:00Z');

  beforeAll(async () => {
    app = await startAnalyticsApp({ ANALYTICS_WIDGET_CACHE_SECONDS: '15' });
    a = await createTestTenant(app.app);
    b = await createTestTenant(app.app);
  });
  beforeEach(() => {
    testClock.at = NOW;
  });
  afterAll(() => app.close());

  const newContacts = async (headers: Record<string, string>) => {
    const res = await app.app.inject({ method: 'GET', url: '/rest/v1/dashboard_widgets', headers });
    expect(res.statusCode).toBe(200);
    return res.json().widgets.find((w: { widget_type: string }) => w.widget_type === 'new_contacts').value;
  };

  it("should serve an organization's value to its members until it expires, then compute it again", async () => {
    const f = new Fixtures(app.db, a.ctx.organizationId);
    await f.contact('2026-01-20T01:00:00Z');
    expect(await newContacts(a.session)).toBe(1);
    await f.contact('2026-01-20T02:00:00Z');
    const agent = await memberHeaders(app.app, a, 'AGENT');
    expect(await newContacts(agent)).toBe(1);
    testClock.at = new Date(NOW.getTime() + 14_999);
    expect(await newContacts(a.session)).toBe(1);
    testClock.at = new Date(NOW.getTime() + 15_000);
    expect(await newContacts(a.session)).toBe(2);
    expect(await newContacts(agent)).toBe(2);
  });

  it("should never serve one organization's value to another", async () => {
    await new Fixtures(app.db, a.ctx.organizationId).contact('2026-01-20T03:00:00Z');
    const f = new Fixtures(app.db, b.ctx.organizationId);
    for (const hour of ['01', '02', '03', '04', '05']) await f.contact(`2026-01-20T${hour}:00:00Z`);
    testClock.at = new Date(NOW.getTime() + 60_000);
    const first = await newContacts(a.session);
    expect(await newContacts(b.session)).toBe(5);
    expect(await newContacts(a.session)).toBe(first);
  });

  it('should compute again when the organization changes a setting its values depend on', async () => {
    testClock.at = new Date(NOW.getTime() + 120_000);
    const before = await newContacts(b.session);
    await new Fixtures(app.db, b.ctx.organizationId).contact('2026-01-20T06:00:00Z');
    expect(await newContacts(b.session)).toBe(before);
    await setSetting(app, b, 'time_zone', 'Asia/Tokyo');
    // Tokyo's Tuesday 20th began at 15:00Z on the 19th: the six contacts of the 20th, all before 21:00 Tokyo.
    expect(await newContacts(b.session)).toBe(before + 1);
  });
});
