import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, memberHeaders, startWebhooksApp } from '../testing/webhooks-test-app';
import { CONTACT_CREATED, DEAL_STAGE_CHANGED } from '@engage/crm';
import { installTestDns } from '@engage/platform/testing';

describe('/rest/v1/webhook_configurations and /rest/v1/webhook_logs', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  // Public names resolve (to a public address) whether or not this machine has DNS; see TEST_DNS.
  let restoreDns: () => void;
  beforeAll(async () => {
    restoreDns = installTestDns();
    ({ app, close } = await startWebhooksApp());
  });
  afterAll(async () => {
    await close();
    restoreDns();
  });

  const post = (headers: Record<string, string>, payload: unknown) =>
    app.inject({
      method: 'POST',
      url: '/rest/v1/webhook_configurations',
      headers: { ...headers, prefer: 'return=representation' },
      payload: payload as object,
    });
  const get = (headers: Record<string, string>, query = '') => app.inject({ method: 'GET', url: `/rest/v1/webhook_configurations${query}`, headers });
  const valid = { name: 'CRM sync', url: 'https://hooks.example.com/engage', events: [CONTACT_CREATED.name, DEAL_STAGE_CHANGED.name] };

  it('should create a configuration with a generated whsec_ secret shown once, then only masked', async () => {
    const tenant = await createTestTenant(app);
    const created = await post(tenant.session, valid);
    expect(created.statusCode).toBe(201);
    const [row] = created.json();
    expect(row).toMatchObject({ ...valid, organization_id: tenant.ctx.organizationId, is_active: true, disabled_reason: null });
    expect(row.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(row).not.toHaveProperty('secret_sealed');
    const [read] = (await get(tenant.session, `?id=eq.${row.id}`)).json();
    expect(read.secret).toBe(`whsec_****${row.secret.slice(-4)}`);
    expect(JSON.stringify(read)).not.toContain(row.secret);
    expect((await get(tenant.session, `?id=eq.${row.id}&select=secret_sealed`)).statusCode).toBe(400);
    const sealed = await app.inject({ method: 'GET', url: `/rest/v1/webhook_configurations?select=id&secret_sealed=not.is.null`, headers: tenant.session });
    expect(sealed.statusCode).toBe(400);
  });

  it('should keep a supplied secret masked, allow none, and filter by organization_id and is_active', async () => {
    const tenant = await createTestTenant(app);
    const supplied = (await post(tenant.session, { ...valid, secret: 'my-shared-secret-1234' })).json()[0];
    expect(supplied.secret).toBe('****1234');
    const none = (await post(tenant.session, { ...valid, name: 'Unsigned', secret: null, is_active: false })).json()[0];
    expect(none.secret).toBeNull();
    const active = (await get(tenant.session, `?organization_id=eq.${tenant.ctx.organizationId}&is_active=eq.true&select=id`)).json();
    const proxied = await app.inject({
      method: 'GET',
      url: `/functions/v1/rest-api-proxy/webhook_configurations?is_active=eq.true&select=id,secret`,
      headers: tenant.key,
    });
    expect(proxied.json()).toEqual([{ id: supplied.id, secret: '****1234' }]);
    expect(active).toEqual([{ id: supplied.id }]);
    const patched = await app.inject({
      method: 'PATCH',
      url: `/rest/v1/webhook_configurations?id=eq.${none.id}`,
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: { is_active: true, secret: 'whsec_' + Buffer.alloc(24, 7).toString('base64') },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()[0]).toMatchObject({ is_active: true, secret: `whsec_****${Buffer.alloc(24, 7).toString('base64').slice(-4)}` });
    const removed = await app.inject({ method: 'DELETE', url: `/rest/v1/webhook_configurations?id=eq.${none.id}`, headers: tenant.session });
    expect(removed.statusCode).toBe(204);
    expect((await get(tenant.session, `?id=eq.${none.id}`)).json()).toEqual([]);
  });

  it('should refuse bad input with a clear 400', async () => {
    const tenant = await createTestTenant(app);
    const cases: [unknown, string][] = [
      [{ ...valid, url: 'http://hooks.example.com/x' }, 'only https://'],
      [{ ...valid, url: 'https://10.0.0.1/x' }, 'IP address targets are not allowed'],
      [{ ...valid, url: 'https://169.254.169.254/latest' }, 'IP address targets are not allowed'],
      // Names are resolved when saved, by the rules of a delivery (no OUTBOUND_ALLOW_HOSTS here).
      [{ ...valid, url: 'https://localhost/x' }, 'localhost resolves to a non-public address (127.0.0.1)'],
      [{ ...valid, url: 'https://localhost./x' }, 'localhost resolves to a non-public address (127.0.0.1)'],
      [{ ...valid, url: 'https://LocalHost.:8443/x' }, 'localhost resolves to a non-public address'],
      [{ ...valid, url: 'https://hosts-entry.test/x' }, 'hosts-entry.test resolves to a non-public address (127.0.0.1)'],
      [{ ...valid, url: 'https://metadata.internal.test/latest' }, 'resolves to a non-public address (169.254.169.254)'],
      [{ ...valid, url: 'https://mixed.test/x' }, 'mixed.test resolves to a non-public address (192.168.1.10)'],
      [{ ...valid, url: 'https://hooks.nowhere.invalid/x' }, 'hooks.nowhere.invalid does not resolve (ENOTFOUND)'],
      [{ ...valid, url: 'not a url' }, 'not a valid URL'],
      [{ ...valid, url: `https://example.com/${'x'.repeat(2100)}` }, 'at most 2048'],
      [{ ...valid, url: 42 }, 'url is required'],
      [{ name: 'x', events: [CONTACT_CREATED.name] }, 'url is required'],
      [{ ...valid, name: '' }, 'name is required'],
      [{ ...valid, name: 'n'.repeat(201) }, 'at most 200'],
      [{ ...valid, events: [CONTACT_CREATED.name, 'nobody.declared', 'foo'] }, 'unknown event kind(s): nobody.declared, foo'],
      [{ ...valid, events: [] }, 'non-empty array'],
      [{ ...valid, events: CONTACT_CREATED.name }, 'non-empty array'],
      [{ ...valid, events: [1] }, 'non-empty array'],
      [{ ...valid, secret: 'short' }, '16 to 256'],
      [{ ...valid, secret: 1234567890123456 }, 'string or null'],
      [{ ...valid, is_active: 'yes' }, 'true or false'],
      [{ ...valid, colour: 'red' }, "Could not find the 'colour' column of 'webhook_configurations'"],
    ];
    for (const [payload, message] of cases) {
      const res = await post(tenant.session, payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect(res.json().message).toContain(message);
    }
    // A scheme in upper case is the same address, stored in lower case (it hit a check constraint: 500).
    const upper = await post(tenant.session, { ...valid, url: 'HTTPS://hooks.example.com/upper' });
    expect(upper.statusCode).toBe(201);
    expect(upper.json()).toMatchObject([{ url: 'https://hooks.example.com/upper' }]);
    // A change of address is vetted the same way, and the stored one stays.
    const moved = await app.inject({
      method: 'PATCH',
      url: `/rest/v1/webhook_configurations?id=eq.${upper.json()[0].id}`,
      headers: tenant.session,
      payload: { url: 'https://localhost./x' },
    });
    expect(moved.statusCode).toBe(400);
    expect(moved.json()).toMatchObject({ code: 'webhook.invalid_url', details: { field: 'url', reason: 'private_address' } });
    expect((await get(tenant.session, `?id=eq.${upper.json()[0].id}&select=url`)).json()).toEqual([{ url: 'https://hooks.example.com/upper' }]);
    await app.inject({ method: 'DELETE', url: `/rest/v1/webhook_configurations?id=eq.${upper.json()[0].id}`, headers: tenant.session });
    const unknown = await post(tenant.session, { ...valid, events: ['nope'] });
    expect(unknown.json().details).toMatchObject({ unknown: ['nope'] });
    expect((await get(tenant.session)).json()).toEqual([]);
  });

  it('should let OWNER and ADMIN write, others (and API keys) only read', async () => {
    const tenant = await createTestTenant(app);
    const admin = await memberHeaders(app, tenant, 'ADMIN');
    const agent = await memberHeaders(app, tenant, 'AGENT');
    const created = await post(admin, valid);
    expect(created.statusCode).toBe(201);
    const id = created.json()[0].id;
    for (const [headers, base] of [
      [agent, '/rest/v1'],
      [tenant.key, '/functions/v1/rest-api-proxy'],
    ] as const) {
      expect((await app.inject({ method: 'POST', url: `${base}/webhook_configurations`, headers, payload: valid })).statusCode).toBe(403);
      expect((await app.inject({ method: 'PATCH', url: `${base}/webhook_configurations?id=eq.${id}`, headers, payload: { name: 'x' } })).statusCode).toBe(403);
      expect((await app.inject({ method: 'DELETE', url: `${base}/webhook_configurations?id=eq.${id}`, headers })).statusCode).toBe(403);
    }
    expect((await get(admin, `?id=eq.${id}`)).json()[0].name).toBe(valid.name);
    const read = (await get(agent)).json();
    expect(read).toHaveLength(1);
    expect(read[0].secret).toMatch(/^whsec_\*\*\*\*/);
    expect((await get({})).statusCode).toBe(401);
    expect((await post({}, valid)).statusCode).toBe(401);
  });

  it("should never show or change another organization's configurations", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const theirs = (await post(b.session, valid)).json()[0];
    expect((await get(a.session, `?id=eq.${theirs.id}`)).json()).toEqual([]);
    expect((await get(a.session, `?organization_id=eq.${b.ctx.organizationId}`)).json()).toEqual([]);
    const patch = await app.inject({
      method: 'PATCH',
      url: `/rest/v1/webhook_configurations?id=eq.${theirs.id}`,
      headers: { ...a.session, prefer: 'return=representation' },
      payload: { name: 'mine' },
    });
    expect(patch.json()).toEqual([]);
    await app.inject({ method: 'DELETE', url: `/rest/v1/webhook_configurations?id=eq.${theirs.id}`, headers: a.session });
    expect((await get(b.session, `?id=eq.${theirs.id}`)).json()[0]).toMatchObject({ name: valid.name });
    const mine = (await post(a.session, { ...valid, organization_id: b.ctx.organizationId })).json()[0];
    expect(mine.organization_id).toBe(a.ctx.organizationId);
  });

  it('should serve webhook_logs read-only', async () => {
    const tenant = await createTestTenant(app);
    const list = await app.inject({
      method: 'GET',
      url: '/rest/v1/webhook_logs?status=eq.failed&created_at=gte.2026-01-01T00:00:00Z',
      headers: tenant.session,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([]);
    const write = await app.inject({ method: 'POST', url: '/rest/v1/webhook_logs', headers: tenant.session, payload: { status: 'success' } });
    expect(write.statusCode).toBe(405);
    expect((await app.inject({ method: 'GET', url: '/rest/v1/webhook_logs?webhook_id=eq.nope', headers: tenant.session })).statusCode).toBe(400);
  });
});
