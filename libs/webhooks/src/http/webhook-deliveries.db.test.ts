import { createHmac } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import { createSelfSignedCert, type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from '@engage/platform/testing';
import { createTestTenant, memberHeaders, startWebhooksApp, type TestTenant } from '../testing/webhooks-test-app';
import { CONTACT_ASSIGNED, CONTACT_CREATED, CONTACT_UPDATED, DEAL_ASSIGNED, DEAL_CREATED, DEAL_STAGE_CHANGED, DEAL_UPDATED } from '@engage/crm';

const CRM_KINDS = [
  CONTACT_CREATED.name,
  CONTACT_UPDATED.name,
  CONTACT_ASSIGNED.name,
  DEAL_CREATED.name,
  DEAL_UPDATED.name,
  DEAL_STAGE_CHANGED.name,
  DEAL_ASSIGNED.name,
];

// End to end in one process running api and worker: events written through the public API are
// relayed, turned into deliveries and POSTed to an HTTPS receiver on 127.0.0.1 with its own certificate.
describe('webhook deliveries over HTTPS', () => {
  const cert = createSelfSignedCert();
  let app: NestFastifyApplication;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  const failing = new Set<string>();
  const hanging = new Set<string>();

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, (request) => {
      const path = request.path.split('?')[0];
      if (hanging.has(path)) return undefined;
      if (failing.has(path)) return { status: 500, body: 'receiver broken' };
      return { status: 200, body: 'ok' };
    });
    ({ app, close } = await startWebhooksApp({ role: 'all', env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: cert.certPath } }));
  });
  afterAll(async () => {
    await receiver.close();
    await close();
  });

  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const waitUntil = async <T>(probe: () => Promise<T | undefined> | T | undefined): Promise<Exclude<T, undefined>> => {
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value as Exclude<T, undefined>;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const arrivals = (path: string, count: number) => waitUntil(() => (at(path).length >= count ? at(path) : undefined));
  const configure = async (tenant: TestTenant, path: string, events: string[], extra: object = {}) => {
    const res = await app.inject({
      method: 'POST',
      url: '/rest/v1/webhook_configurations',
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: { name: path, url: `${receiver.url}${path}`, events, ...extra },
    });
    expect(res.statusCode).toBe(201);
    return res.json()[0] as { id: string; secret: string };
  };
  const rest = (tenant: TestTenant, method: 'POST' | 'PATCH', path: string, payload: object) =>
    app.inject({ method, url: `/rest/v1/${path}`, headers: { ...tenant.session, prefer: 'return=representation' }, payload });
  const logs = (tenant: TestTenant, query: string) => app.inject({ method: 'GET', url: `/rest/v1/webhook_logs?${query}`, headers: tenant.session });
  const plainValid = (secret: string, request: ReceivedRequest) =>
    request.headers['x-webhook-signature'] ===
    `sha256=${createHmac('sha256', secret).update(`${request.headers['x-webhook-timestamp']}.${request.body}`).digest('hex')}`;

  it('should deliver every CRM kind triggered through the public API, signed both ways, and log each attempt', async () => {
    const tenant = await createTestTenant(app);
    const other = await createTestTenant(app);
    const started = new Date().toISOString();
    const all = await configure(tenant, '/all', CRM_KINDS);
    await configure(tenant, '/deals-only', [DEAL_CREATED.name]);
    await configure(tenant, '/inactive', CRM_KINDS, { is_active: false });
    await configure(other, '/other-org', CRM_KINDS);

    const contact = (await rest(tenant, 'POST', 'contacts', { first_name: 'Mona', assignee_id: tenant.ctx.userId })).json()[0];
    expect(contact.id).toBeDefined();
    await rest(tenant, 'PATCH', `contacts?id=eq.${contact.id}`, { last_name: 'Saleh' });
    const deal = (await rest(tenant, 'POST', 'deals', { title: 'Big one', contact_id: contact.id, owner_id: tenant.ctx.userId, value: 100 })).json()[0];
    expect(deal.id).toBeDefined();
    await rest(tenant, 'PATCH', `deals?id=eq.${deal.id}`, { stage: 'QUALIFIED' });

    const received = await arrivals('/all', 7);
    const kinds = received.map((r) => r.headers['x-webhook-event']).sort();
    expect(kinds).toEqual([...CRM_KINDS].sort());
    const verifier = new Webhook(all.secret);
    for (const request of received) {
      const body = verifier.verify(request.body, request.headers as Record<string, string>) as { event: string; timestamp: string; data: { id: string } };
      expect(plainValid(all.secret, request)).toBe(true);
      expect(request.headers['content-type']).toBe('application/json');
      expect(body.event).toBe(request.headers['x-webhook-event']);
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      expect(body.data.id).toBe(body.event.startsWith('contact.') ? contact.id : deal.id);
    }
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(7);
    const stageChange = JSON.parse(received.find((r) => r.headers['x-webhook-event'] === DEAL_STAGE_CHANGED.name)!.body);
    expect(stageChange.data).toMatchObject({ stage: 'QUALIFIED', changes: { from_stage: 'LEAD', to_stage: 'QUALIFIED' } });

    const dealsOnly = await arrivals('/deals-only', 1);
    expect(dealsOnly.map((r) => r.headers['x-webhook-event'])).toEqual([DEAL_CREATED.name]);
    const logged = await waitUntil(async () => {
      const rows: Record<string, unknown>[] = (
        await logs(tenant, `webhook_id=eq.${all.id}&status=eq.success&created_at=gte.${started}&order=created_at`)
      ).json();
      return rows.length === 7 ? rows : undefined;
    });
    expect(logged[0]).toMatchObject({
      webhook_id: all.id,
      status: 'success',
      response_code: 200,
      error_message: null,
      attempt: 1,
      duration_ms: expect.any(Number),
    });
    expect((await logs(tenant, `webhook_id=eq.${all.id}&status=eq.failed`)).json()).toEqual([]);
    expect((await logs(other, `webhook_id=eq.${all.id}`)).json()).toEqual([]);
    expect(at('/inactive')).toEqual([]);
    expect(at('/other-org')).toEqual([]);
  });

  it('should send a test payload and answer the outcome; only OWNER/ADMIN, only their own webhooks', async () => {
    const tenant = await createTestTenant(app);
    const other = await createTestTenant(app);
    const hook = await configure(tenant, '/test-ok', [CONTACT_CREATED.name]);
    const test = (id: string, headers: Record<string, string>) => app.inject({ method: 'POST', url: `/functions/v1/webhooks/${id}/test`, headers });
    const ok = await test(hook.id, tenant.session);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ success: true, status: 'success', status_code: 200, error: null, duration_ms: expect.any(Number), attempt: 1 });
    const [request] = at('/test-ok');
    expect(new Webhook(hook.secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({
      event: 'webhook.test',
      data: { webhook_id: hook.id },
    });

    failing.add('/test-bad');
    const bad = await configure(tenant, '/test-bad', [CONTACT_CREATED.name]);
    const failed = (await test(bad.id, tenant.session)).json();
    expect(failed).toMatchObject({ success: false, status: 'failed', status_code: 500, error: 'HTTP 500: receiver broken' });
    const [log] = (await logs(tenant, `webhook_id=eq.${bad.id}`)).json();
    expect(log).toMatchObject({ event: 'webhook.test', status: 'failed', response_code: 500 });
    const [config] = (await app.inject({ method: 'GET', url: `/rest/v1/webhook_configurations?id=eq.${bad.id}`, headers: tenant.session })).json();
    expect(config).toMatchObject({ is_active: true, failing_since: null });

    expect((await test('not-a-uuid', tenant.session)).statusCode).toBe(400);
    const theirs = await configure(other, '/theirs', [CONTACT_CREATED.name]);
    expect((await test(theirs.id, tenant.session)).statusCode).toBe(404);
    expect((await test(hook.id, {})).statusCode).toBe(401);
    expect((await test(hook.id, await memberHeaders(app, tenant, 'AGENT'))).statusCode).toBe(403);
    expect((await test(hook.id, tenant.key)).statusCode).toBe(403);
    expect((await test(hook.id, await memberHeaders(app, tenant, 'ADMIN'))).statusCode).toBe(200);
    expect(at('/theirs')).toEqual([]);
  });

  it('should retry a logged delivery manually with the same webhook-id', async () => {
    const tenant = await createTestTenant(app);
    const other = await createTestTenant(app);
    failing.add('/flaky');
    await configure(tenant, '/flaky', [CONTACT_CREATED.name]);
    await rest(tenant, 'POST', 'contacts', { first_name: 'Retry' });
    const [first] = await arrivals('/flaky', 1);
    const log = await waitUntil(async () => (await logs(tenant, `status=eq.retrying`)).json()[0]);
    expect(log).toMatchObject({ event: CONTACT_CREATED.name, response_code: 500, error_message: 'HTTP 500: receiver broken', attempt: 1 });

    failing.delete('/flaky');
    const retry = (id: string, headers: Record<string, string>) => app.inject({ method: 'POST', url: `/functions/v1/webhooks/logs/${id}/retry`, headers });
    expect((await retry(log.id, tenant.key)).statusCode).toBe(403);
    expect((await retry(log.id, await memberHeaders(app, tenant, 'AGENT'))).statusCode).toBe(403);
    expect((await retry(log.id, other.session)).statusCode).toBe(404);
    expect((await retry(log.id, {})).statusCode).toBe(401);
    expect((await retry('12', tenant.session)).statusCode).toBe(400);
    const res = await retry(log.id, tenant.session);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, status_code: 200, attempt: 2, delivery_id: log.delivery_id });
    const second = at('/flaky')[1];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect((await logs(tenant, `delivery_id=eq.${log.delivery_id}&status=eq.success`)).json()).toHaveLength(1);
  });

  it('should keep delivering to a healthy endpoint while another never answers', async () => {
    const tenant = await createTestTenant(app);
    hanging.add('/hang');
    await configure(tenant, '/hang', [CONTACT_CREATED.name]);
    await configure(tenant, '/healthy', [CONTACT_CREATED.name]);
    for (let i = 0; i < 12; i++) await rest(tenant, 'POST', 'contacts', { first_name: `Load ${i}` });
    await arrivals('/hang', 1);
    await arrivals('/healthy', 12);
    // The hung endpoint holds at most WEBHOOK_CONCURRENCY_PER_ENDPOINT (4) attempts at a time.
    expect(at('/hang').length).toBeLessThanOrEqual(4);
  });
});
