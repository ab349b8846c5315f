import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, type PlatformRuntime } from '@engage/platform';
import { startTestRuntime, testRootModule } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { OrganizationService } from '../application/organization.service';
import { OrganizationSettings } from '../application/organization-settings';
import { createTestTenant, memberHeaders, type TestTenant } from '../testing';

const URL = '/functions/v1/organization/settings';
const UNSET = {
  time_zone: null,
  business_hours: null,
  sla_target_minutes: null,
  default_country: null,
  deal_inactivity_days: null,
  opt_out_keywords: null,
  opt_in_keywords: null,
  suite_id: null,
  has_appgain_api_key: false,
  appgain_api_key_last4: null,
  has_zoom_secret_token: false,
  zoom_secret_token_last4: null,
};
const HOURS = {
  mon: [['09:00', '17:00']],
  tue: [
    ['09:00', '12:00'],
    ['13:00', '17:00'],
  ],
};

describe('organization settings over HTTP', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: identityMigrations });
    app = await createHttpApp(runtime, testRootModule(runtime, [IdentityModule]));
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  const read = (headers: Record<string, string>) => app.inject({ method: 'GET', url: URL, headers });
  const patch = (headers: Record<string, string>, payload: unknown) =>
    app.inject({ method: 'PATCH', url: URL, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
  const stored = async (tenant: TestTenant) => {
    const query = 'SELECT settings FROM organizations WHERE id = $1';
    const [row] = await runtime.db.asSystem((tx) => tx.query<{ settings: Record<string, unknown> }>(query, [tenant.ctx.organizationId]));
    return row.settings;
  };

  it("should let every member read, refuse an AGENT's change with 403, and show an OWNER's and an ADMIN's changes", async () => {
    const tenant = await createTestTenant(app);
    const agent = await memberHeaders(app, tenant, 'AGENT');
    const admin = await memberHeaders(app, tenant, 'ADMIN');
    const fresh = await read(agent);
    expect([fresh.statusCode, fresh.json()]).toEqual([200, UNSET]);
    expect((await read(await memberHeaders(app, tenant, 'PROJECT_MANAGER'))).json()).toEqual(UNSET);

    const refused = await patch(agent, { time_zone: 'Africa/Cairo' });
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'insufficient_role']);
    expect(await stored(tenant)).toEqual({});

    const changes = {
      time_zone: 'Africa/Cairo',
      business_hours: HOURS,
      sla_target_minutes: 120,
      default_country: 'EG',
      deal_inactivity_days: 14,
      opt_out_keywords: ['STOP', 'ARRET', 'توقف', 'W'.repeat(32)],
      opt_in_keywords: ['START'],
    };
    const changed = await patch(tenant.session, changes);
    expect([changed.statusCode, changed.json()]).toEqual([200, { ...UNSET, ...changes }]);
    expect((await read(agent)).json()).toEqual({ ...UNSET, ...changes });

    const byAdmin = await patch(admin, { business_hours: null, sla_target_minutes: 45 });
    expect(byAdmin.statusCode).toBe(200);
    expect((await read(agent)).json()).toEqual({ ...UNSET, ...changes, business_hours: null, sla_target_minutes: 45 });
    // Stored as the admin CLI stores them: what other contexts read (analytics, the CRM).
    expect(await stored(tenant)).toEqual({
      time_zone: 'Africa/Cairo',
      sla_target_minutes: '45',
      default_country: 'EG',
      deal_inactivity_days: '14',
      opt_out_keywords: JSON.stringify(changes.opt_out_keywords),
      opt_in_keywords: '["START"]',
    });
    const plain = await app.get(OrganizationSettings).plainMany(tenant.ctx.organizationId, ['time_zone', 'sla_target_minutes', 'business_hours']);
    expect(plain).toEqual(['Africa/Cairo', '45', null]);
    expect((await patch(admin, {})).json()).toEqual((await read(agent)).json());
  });

  it('should refuse bad values with 400 naming the setting, never 500, and keep every setting as it was', async () => {
    const tenant = await createTestTenant(app);
    await patch(tenant.session, { time_zone: 'Asia/Tokyo', sla_target_minutes: 60 });
    const before = await stored(tenant);
    const cases: [unknown, string, string, RegExp][] = [
      [{ time_zone: 'Mars/Olympus' }, 'validation_failed', 'time_zone', /"Mars\/Olympus" is not a known time zone/],
      [{ time_zone: 'Europe/'.padEnd(5000, 'x') }, 'validation_failed', 'time_zone', /time_zone must be a string of at most 4096 characters/],
      [{ time_zone: 'Europe/'.padEnd(100, 'x') }, 'validation_failed', 'time_zone', /is not a known time zone/],
      [{ time_zone: 3 }, 'validation_failed', 'time_zone', /time_zone must be an IANA time zone name/],
      [{ sla_target_minutes: '120' }, 'validation_failed', 'sla_target_minutes', /whole number of minutes from 1 to 10080/],
      [{ sla_target_minutes: 1.5 }, 'validation_failed', 'sla_target_minutes', /whole number of minutes/],
      [{ sla_target_minutes: 10081 }, 'validation_failed', 'sla_target_minutes', /whole number of minutes/],
      [{ deal_inactivity_days: 0 }, 'validation_failed', 'deal_inactivity_days', /whole number of days from 1 to 365/],
      [{ business_hours: 'weekdays 9 to 5' }, 'validation_failed', 'business_hours', /business_hours: must be an object of weekdays/],
      [{ business_hours: { mon: [['17:00', '09:00']] } }, 'validation_failed', 'business_hours', /mon\[0\] ends \(09:00\) before or when it starts/],
      [{ business_hours: { funday: [] } }, 'validation_failed', 'business_hours', /"funday" is not a weekday/],
      [{ default_country: 'eg' }, 'validation_failed', 'default_country', /ISO 3166 alpha-2/],
      [{ default_country: 'XX' }, 'validation_failed', 'default_country', /ISO 3166 alpha-2/],
      [{ default_country: 'EGY' }, 'validation_failed', 'default_country', /ISO 3166 alpha-2/],
      [{ default_country: ['EG'] }, 'validation_failed', 'default_country', /ISO 3166 alpha-2/],
      [{ opt_out_keywords: 'STOP' }, 'validation_failed', 'opt_out_keywords', /must be a list of 1 to 20 words/],
      [{ opt_out_keywords: [] }, 'validation_failed', 'opt_out_keywords', /must be a list of 1 to 20 words/],
      [{ opt_out_keywords: Array.from({ length: 21 }, (_, i) => `W${i}`) }, 'validation_failed', 'opt_out_keywords', /1 to 20 words/],
      [{ opt_out_keywords: ['S'.repeat(33)] }, 'validation_failed', 'opt_out_keywords', /item 0 is not/],
      [{ opt_out_keywords: ['STOP', 'two words'] }, 'validation_failed', 'opt_out_keywords', /item 1 is not/],
      [{ opt_out_keywords: ['STOP', 7] }, 'validation_failed', 'opt_out_keywords', /item 1 is not/],
      [{ opt_out_keywords: [''] }, 'validation_failed', 'opt_out_keywords', /item 0 is not/],
      [{ opt_out_keywords: ['Stop', 'STOP'] }, 'validation_failed', 'opt_out_keywords', /names "STOP" twice/],
      [{ opt_in_keywords: { START: true } }, 'validation_failed', 'opt_in_keywords', /must be a list/],
      [{ opt_in_keywords: ['START'.padEnd(5000, 'T')] }, 'validation_failed', 'opt_in_keywords', /at most 4096 characters|item 0 is not/],
      [{ appgain_api_key: 'x'.repeat(513) }, 'validation_failed', 'appgain_api_key', /1 to 512 printable characters/],
      [{ zoom_secret_token: 'short' }, 'validation_failed', 'zoom_secret_token', /8 to 256 printable characters/],
      [{ zoom_secret_token: 7 }, 'validation_failed', 'zoom_secret_token', /8 to 256 printable characters/],
      [{ timezone: 'UTC' }, 'unknown_setting', 'timezone', /unknown setting "timezone" \(settings: time_zone, /],
      [{ has_appgain_api_key: true }, 'unknown_setting', 'has_appgain_api_key', /send appgain_api_key/],
      [{ suite_id: 'acme' }, 'read_only_setting', 'suite_id', /suite_id is set by an operator/],
      // Every key is known before any value counts; a valid one beside a bad one is not written.
      [{ sla_target_minutes: 0, nope: 1 }, 'unknown_setting', 'nope', /unknown setting "nope"/],
      [{ time_zone: 'UTC', sla_target_minutes: 0 }, 'validation_failed', 'sla_target_minutes', /whole number/],
    ];
    for (const [payload, code, setting, message] of cases) {
      const res = await patch(tenant.session, payload);
      expect({ payload, status: res.statusCode, code: res.json().code }).toEqual({ payload, status: 400, code });
      expect({ payload, error: res.json().error }).toEqual({ payload, error: expect.stringMatching(message) });
      expect({ payload, names: res.json().error.includes(setting) }).toEqual({ payload, names: true });
    }
    for (const body of ['[]', 'null', '"UTC"', '3']) {
      const res = await app.inject({ method: 'PATCH', url: URL, headers: { ...tenant.session, 'content-type': 'application/json' }, payload: body });
      expect({ body, status: res.statusCode }).toEqual({ body, status: 400 });
    }
    expect(await stored(tenant)).toEqual(before);
  });

  it('should take secrets write-only: shown as has_<name> and their last 4 characters, sealed at rest', async () => {
    const tenant = await createTestTenant(app);
    const [key, token] = ['provider-key-0123456789', 'zoom-secret-token-abcd'];
    const set = await patch(tenant.session, { appgain_api_key: key, zoom_secret_token: token });
    const shown = { has_appgain_api_key: true, appgain_api_key_last4: '6789', has_zoom_secret_token: true, zoom_secret_token_last4: 'abcd' };
    expect([set.statusCode, set.json()]).toEqual([200, { ...UNSET, ...shown }]);
    const agentRead = await read(await memberHeaders(app, tenant, 'AGENT'));
    expect(agentRead.json()).toEqual({ ...UNSET, ...shown });
    for (const body of [set.body, agentRead.body, JSON.stringify(await stored(tenant))]) {
      expect(body).not.toContain(key);
      expect(body).not.toContain(token);
    }
    const settings = app.get(OrganizationSettings);
    expect(await settings.providerKey(tenant.ctx.organizationId)).toEqual({ key });
    expect(await settings.zoomSecretToken(tenant.ctx.organizationId)).toBe(token);

    // A refused secret is not echoed; a short one shows no last characters; null removes one.
    const refused = await patch(tenant.session, { appgain_api_key: 'has a space' });
    expect([refused.statusCode, refused.body.includes('has a space')]).toEqual([400, false]);
    const short = await patch(tenant.session, { appgain_api_key: 'k-123', zoom_secret_token: null });
    expect(short.json()).toEqual({ ...UNSET, has_appgain_api_key: true });
    expect(short.body).not.toContain('k-123');
    expect(await settings.zoomSecretToken(tenant.ctx.organizationId)).toBeNull();
  });

  it("should never show or change another organization's settings", async () => {
    const [a, b] = [await createTestTenant(app, 'A'), await createTestTenant(app, 'B')];
    await patch(a.session, { time_zone: 'Asia/Tokyo', appgain_api_key: 'a-provider-key-000' });
    expect((await read(b.session)).json()).toEqual(UNSET);
    expect((await read(b.key)).json()).toEqual(UNSET);
    await patch(b.session, { time_zone: 'Europe/Berlin', appgain_api_key: null });
    expect((await read(a.session)).json()).toMatchObject({ time_zone: 'Asia/Tokyo', has_appgain_api_key: true, appgain_api_key_last4: '-000' });
  });

  it('should describe both routes in /docs from the declarations: every setting answered, the writable ones taken', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const item = doc.paths[URL];
    const answer = item.get.responses['200'].content['application/json'].schema;
    expect(Object.keys(answer.properties).sort()).toEqual(Object.keys(UNSET).sort());
    expect(answer.properties.sla_target_minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 10080, nullable: true });
    const body = item.patch.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toBe(false);
    const writable = [
      'time_zone',
      'business_hours',
      'sla_target_minutes',
      'default_country',
      'deal_inactivity_days',
      'opt_out_keywords',
      'opt_in_keywords',
      'appgain_api_key',
      'zoom_secret_token',
    ];
    expect(Object.keys(body.properties)).toEqual(writable);
    expect(Object.keys(item.patch.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });

  it("should let the organization's API key read and change, and refuse no credentials", async () => {
    const tenant = await createTestTenant(app);
    expect((await patch(tenant.key, { default_country: 'AE' })).json()).toMatchObject({ default_country: 'AE' });
    expect((await read(tenant.key)).json()).toMatchObject({ default_country: 'AE' });
    expect((await read({})).statusCode).toBe(401);
    expect((await patch({}, { default_country: 'EG' })).statusCode).toBe(401);
  });

  it('should show what the admin CLI set, check the CLI with the same declarations, and show a bad stored value as null', async () => {
    const tenant = await createTestTenant(app);
    const organizations = app.get(OrganizationService);
    const id = tenant.ctx.organizationId;
    await organizations.setSetting(id, 'suite_id', 'acme-01');
    await organizations.setSetting(id, 'sla_target_minutes', '90');
    await organizations.setSetting(id, 'business_hours', '{"mon":[["09:00","17:00"]]}');
    await organizations.setSetting(id, 'appgain_api_key', 'cli-provider-key-9876');
    await organizations.setSetting(id, 'opt_out_keywords', '["STOP","QUIT"]');
    expect((await read(tenant.session)).json()).toEqual({
      ...UNSET,
      suite_id: 'acme-01',
      sla_target_minutes: 90,
      business_hours: { mon: [['09:00', '17:00']] },
      has_appgain_api_key: true,
      appgain_api_key_last4: '9876',
      opt_out_keywords: ['STOP', 'QUIT'],
    });
    await expect(organizations.setSetting(id, 'opt_in_keywords', 'START,UNSTOP')).rejects.toMatchObject({ details: { setting: 'opt_in_keywords' } });
    await expect(organizations.setSetting(id, 'timezone', 'UTC')).rejects.toMatchObject({ kind: 'validation', code: 'unknown_setting' });
    await expect(organizations.setSetting(id, 'suite_id', 'a/b')).rejects.toMatchObject({ kind: 'validation', details: { setting: 'suite_id' } });
    await expect(organizations.setSetting(id, 'default_country', 'XX')).rejects.toMatchObject({ message: expect.stringContaining('default_country') });
    await expect(organizations.setSetting(id, 'time_zone', 'Mars/Olympus')).rejects.toThrow(/not a known time zone/);
    await organizations.clearSetting(id, 'suite_id');

    // Written around the checks (SQL): shown as unset rather than failing the read.
    const raw = { deal_inactivity_days: 30, sla_target_minutes: 'soon', business_hours: '{"mon":[]}', time_zone: 7, appgain_api_key: 'not sealed' };
    await runtime.db.asSystem((tx) => tx.query('UPDATE organizations SET settings = $2::jsonb WHERE id = $1', [id, JSON.stringify(raw)]));
    const shown = await read(tenant.session);
    expect([shown.statusCode, shown.json()]).toEqual([200, { ...UNSET, deal_inactivity_days: 30 }]);
  });
});
