import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { zoomSignature } from '@engage/calls';
import { listDevMailbox, OrganizationService } from '@engage/identity';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { OBJECT_STORAGE, type ObjectStorage, type PlatformRuntime, publicUrl } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, startHttpsReceiver } from '@engage/platform/testing';
import { startComposedApp } from './composed-app';

type Response = { description?: string; content?: Record<string, { schema: object }> };
type Operation = { tags?: string[]; responses: Record<string, Response> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: object };

// Every function and auth operation.
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths)
    .filter(([path]) => /^\/(functions|auth)\/v1\//.test(path) && !path.startsWith('/functions/v1/rest-api-proxy/'))
    .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })));
const SECRET = 'contract-billing-secret-0123456789';
const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
const META_SECRET = 'contract-meta-app-secret-0123456789';
const META_VERIFY = 'contract-meta-verify-token';
const PAGE_ID = '104729384756102';

// The chat-app provider (POST /<organization>/send), the Graph API's token check (GET /graph/<id>) and the SMS
// provider's account check (GET /2010-04-01/Accounts/<sid>.json) on 127.0.0.1.
function startPeer(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const last = (req.url ?? '').split('?')[0].split('/').pop() ?? '';
      // GET /2010-04-01/Accounts/<sid>.json: the SMS provider's account resource.
      const answer =
        req.method === 'GET'
          ? last.endsWith('.json')
            ? { sid: last.slice(0, -5) }
            : { id: last }
          : { status: true, message: 'Message sent', external_id: `ext-${randomUUID()}` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// Every function and auth operation of identity, the CRM, billing, onboarding and webhooks is called
// for real on the composed app, and each 2xx answer is validated against the schema /docs declares.
describe('what the function and auth routes answer, against /docs', () => {
  let peer: Server;
  const cert = createSelfSignedCert();
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  let doc: Doc;
  let ajv: Ajv;
  const checked = new Set<string>();
  let peerBase = '';
  const validators = new Map<object, ValidateFunction>();

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert, (request) => (request.path.startsWith('/broken') ? { status: 500, body: 'no' } : { status: 200, body: 'ok' }));
    peer = await startPeer();
    const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    peerBase = peerUrl;
    const env = {
      BILLING_WEBHOOK_SECRET: SECRET,
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: cert.certPath,
      NOTIFY_URL: peerUrl,
      META_GRAPH_URL: `${peerUrl}/graph`,
      META_APP_SECRET: META_SECRET,
      META_VERIFY_TOKEN: META_VERIFY,
      SMS_API_URL: peerUrl,
    };
    ({ app, runtime, close } = await startComposedApp({ env }));
    doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as Doc;
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ components: doc.components }, 'doc');
  });
  afterAll(async () => {
    await close();
    await receiver.close();
    peer.closeAllConnections();
    await new Promise((resolve) => peer.close(resolve));
  });

  // The document leaves objects open (a field added later breaks no client); here every field an
  // answer carries must be declared, so a schema that forgot one fails.
  const closed = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(closed);
    if (typeof schema !== 'object' || schema === null) return schema;
    const each = (map: object) => Object.fromEntries(Object.entries(map).map(([key, value]) => [key, closed(value)]));
    const out = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties' ? each(value as object) : closed(value)]));
    return 'properties' in out && !('additionalProperties' in out) ? { ...out, additionalProperties: false } : out;
  };
  const validate = (schema: object) => {
    const local = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')) as object;
    if (!validators.has(schema)) validators.set(schema, ajv.compile(closed(local) as object));
    return validators.get(schema)!;
  };

  // Calls `method template` (path parameters filled from `params`) and checks the answer's status is
  // a declared 2xx and its body matches that status's schema.
  type CallOptions = { params?: Record<string, string>; query?: string; headers?: Record<string, string>; payload?: unknown };
  async function call(method: string, template: string, options: CallOptions = {}) {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => options.params![name]);
    const url = `${path}${options.query ?? ''}`;
    const res = await app.inject({ method: method as 'GET', url, headers: options.headers, payload: options.payload as string });
    const operation = doc.paths[template]?.[method.toLowerCase()];
    if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${res.body}`);
    const declared = operation.responses[String(res.statusCode)];
    expect({ template, status: res.statusCode, declared: declared !== undefined }).toEqual({ template, status: res.statusCode, declared: true });
    const [type, media] = Object.entries(declared?.content ?? {})[0] ?? [];
    // `*/*`: a file served with its own media type.
    if (type !== '*/*') expect({ template, type }).toEqual({ template, type: res.headers['content-type']?.toString().split(';')[0] });
    if (type === 'application/json') {
      const check = validate(media!.schema);
      const body = res.json();
      expect({ template, valid: check(body), errors: check.errors }).toEqual({ template, valid: true, errors: null });
    } else {
      expect(media!.schema).toMatchObject({ type: 'string' });
    }
    checked.add(`${method} ${template}`);
    return res;
  }

  const mailTo = async (email: string, pattern: RegExp) => {
    const mails = (await listDevMailbox(runtime.config.DATA_DIR)).filter((mail) => mail.to === email);
    return pattern.exec(mails[mails.length - 1]?.text ?? '')![0];
  };

  it('should declare a 2xx schema on every function and auth operation', () => {
    const missing = operationsOf(doc).filter(({ operation }) => {
      const success = Object.entries(operation.responses).filter(([status]) => Number(status) < 400);
      return success.length === 0 || success.some(([status, response]) => status !== '204' && status !== '303' && !response.content);
    });
    expect(missing.map(({ name }) => name)).toEqual([]);
  });

  it('should answer GoTrue, team and API-key routes as declared', async () => {
    const email = `new.${randomUUID()}@example.com`;
    const password = 'a long password 1';
    await call('POST', '/auth/v1/signup', { payload: { email, password, data: { first_name: 'Lea' } } });
    const link = await mailTo(email, /\/auth\/v1\/verify\?\S+/);
    const [, query] = link.split('?');
    const verified = await call('GET', '/auth/v1/verify', { query: `?${query}` });
    const session = { authorization: `Bearer ${verified.json().access_token}` };
    const login = await call('POST', '/auth/v1/token', { query: '?grant_type=password', payload: { email, password } });
    await call('POST', '/auth/v1/token', { query: '?grant_type=refresh_token', payload: { refresh_token: login.json().refresh_token } });
    await call('GET', '/auth/v1/user', { headers: session });
    await call('PUT', '/auth/v1/user', { headers: session, payload: { data: { first_name: 'Grace' } } });
    await call('POST', '/auth/v1/user', { headers: session, payload: { email: `changed.${randomUUID()}@example.com` } });
    await call('POST', '/auth/v1/recover', { payload: { email } });
    await call('GET', '/auth/v1/reauthenticate', { headers: session });
    await call('POST', '/functions/v1/mobile-api/login', { payload: { email, password } });
    await call('POST', '/functions/v1/presence', { headers: session, payload: { online: false } });

    const tenant = await createTestTenant(app);
    await memberHeaders(app, tenant, 'AGENT');
    const members = await call('GET', '/functions/v1/members', { headers: tenant.session });
    const agent = (members.json().members as { id: string; role: string }[]).find((member) => member.role === 'AGENT')!;
    await call('PATCH', '/functions/v1/members/{userId}', { params: { userId: agent.id }, headers: tenant.session, payload: { role: 'ADMIN' } });
    const invitee = `invitee.${randomUUID()}@example.com`;
    await call('POST', '/functions/v1/invitations', { headers: tenant.session, payload: { email: invitee, role: 'AGENT' } });
    await call('GET', '/functions/v1/invitations', { headers: tenant.session });
    const token = decodeURIComponent((await mailTo(invitee, /token=\S+/)).slice('token='.length));
    await call('GET', '/functions/v1/invitations/accept', { query: `?token=${encodeURIComponent(token)}` });
    await call('POST', '/functions/v1/invitations/accept', { payload: { token, password: 'invitee password 1', first_name: 'Ines' } });
    await call('POST', '/functions/v1/api-keys', { headers: tenant.session, payload: { name: 'zapier' } });
    await call('GET', '/functions/v1/api-keys', { headers: tenant.session });
    const settings = {
      time_zone: 'Africa/Cairo',
      business_hours: { mon: [['09:00', '17:00']] },
      sla_target_minutes: 120,
      default_country: 'EG',
      deal_inactivity_days: 14,
      appgain_api_key: 'answers-provider-key',
      zoom_secret_token: null,
    };
    await call('PATCH', '/functions/v1/organization/settings', { headers: tenant.session, payload: settings });
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'suite_id', 'answers-team');
    expect((await call('GET', '/functions/v1/organization/settings', { headers: tenant.key })).json()).toMatchObject({ suite_id: 'answers-team' });
  });

  it("should answer the CRM's functions as declared (contacts, companies, deals, timelines, CSV)", async () => {
    const t = await createTestTenant(app);
    const rest = async (table: string, payload: object) => {
      const res = await app.inject({ method: 'POST', url: `/rest/v1/${table}`, headers: { ...t.session, prefer: 'return=representation' }, payload });
      expect(res.statusCode).toBe(201);
      return res.json()[0] as { id: string };
    };
    const acme = await rest('companies', { name: 'Acme Inc', website: 'https://acme.example', phones: ['+201001234500'] });
    const acme2 = await rest('companies', { name: 'ACME', website: 'acme.example' });
    const ada = await rest('contacts', { first_name: 'Ada', phones: ['+201001234567'], company_id: acme.id });
    const solo = await rest('contacts', { first_name: 'Solo' });
    const deal = await rest('deals', { title: 'Big one', value: 1200.5, contact_id: ada.id, company_id: acme.id, expected_close_date: '2027-01-31' });
    await runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO timeline_entries (organization_id, event_id, type, source, occurred_at, actor_id, contact_id, deal_id, company_id, summary, data)
         VALUES ($1, gen_random_uuid(), 'NOTE', 'crm', now(), $2, $3, $4, $5, 'A note', '{"body":"hello"}')`,
        [t.ctx.organizationId, t.ctx.userId, ada.id, deal.id, acme.id],
      ),
    );

    await call('GET', '/functions/v1/mobile-api/contacts', { headers: t.session, query: '?limit=10&search=Ada' });
    for (const id of [ada.id, solo.id]) await call('GET', '/functions/v1/mobile-api/contacts/{id}', { params: { id }, headers: t.session });
    await call('POST', '/functions/v1/search-companies', { headers: t.key, payload: { searchTerm: 'acme' } });
    const groups = await call('POST', '/functions/v1/find-duplicate-companies', { headers: t.key, payload: {} });
    expect(groups.json().groups.length).toBeGreaterThan(0);
    await call('GET', '/functions/v1/deals/board', { headers: t.key });
    await call('POST', '/functions/v1/deals/{id}/move', { params: { id: deal.id }, headers: t.key, payload: { stage: 'QUALIFIED', position: 0 } });
    for (const [entity, id] of [
      ['contacts', ada.id],
      ['companies', acme.id],
      ['deals', deal.id],
    ]) {
      const page = await call('GET', `/functions/v1/${entity}/{id}/timeline`, { params: { id }, headers: t.key, query: '?limit=1' });
      expect(page.json().entries.length).toBe(1);
    }
    const merge = { companyIds: [acme.id, acme2.id], primaryCompanyId: acme.id };
    const merged = await call('POST', '/functions/v1/find-duplicate-companies', { headers: t.key, payload: merge });
    expect(merged.json().merged_company_ids).toEqual([acme2.id]);

    const csv = { ...t.key, 'content-type': 'text/csv' };
    const rows = 'first_name,phone,email\nBea,+201001234599,bea@example.com\n,,not-an-email\n';
    const job = await call('POST', '/functions/v1/contacts/import', { headers: csv, payload: rows });
    expect(job.json()).toMatchObject({ status: 'completed', created: 1, failed: 1 });
    await call('POST', '/functions/v1/companies/import', { headers: csv, payload: 'name,country\nGlobex,EG\n' });
    await call('GET', '/functions/v1/imports', { headers: t.key });
    await call('GET', '/functions/v1/imports/{id}', { params: { id: job.json().id }, headers: t.key });
    await call('GET', '/functions/v1/contacts/export', { headers: t.key });
    await call('GET', '/functions/v1/companies/export', { headers: t.key, query: '?columns=id,name' });
  });

  it('should answer billing, onboarding and webhook actions as declared', async () => {
    const t: TestTenant = await createTestTenant(app);
    await call('GET', '/functions/v1/subscription', { headers: t.key });
    await call('GET', '/functions/v1/onboarding', { headers: t.session });
    const act = (action: string, payload: object = {}) =>
      call('POST', '/functions/v1/onboarding/{action}', { params: { action }, headers: t.session, payload });
    expect((await act('verify-email')).json()).toMatchObject({ sent: false, reason: 'already_verified' });
    expect((await act('select-plan', { plan_id: 'starter' })).json().checkout.status).toBe('awaiting_billing_event');
    const event = (start: string) =>
      JSON.stringify({
        organization_id: t.ctx.organizationId,
        plan_id: 'starter',
        storefront_store_id: 12345,
        status: 'trialing',
        current_period_start: start,
        current_period_end: '2099-01-01T00:00:00Z',
        trial_start: null,
        trial_end: '2099-01-01T00:00:00Z',
        cancel_at_period_end: false,
      });
    const billing = (body: string) => {
      const headers = { 'content-type': 'application/json', 'x-billing-signature': sign(body) };
      return call('POST', '/functions/v1/storefront-billing-webhook', { headers, payload: body });
    };
    expect((await billing(event('2026-06-01T00:00:00Z'))).json()).toMatchObject({ ok: true, applied: true, storefront_store_id: '12345' });
    expect((await billing(event('2026-05-01T00:00:00Z'))).json()).toMatchObject({ applied: false, reason: 'stale_event' });
    expect((await call('GET', '/functions/v1/subscription', { headers: t.session })).json()).toMatchObject({ status: 'Trial', plan: { id: 'starter' } });
    expect((await act('skip-channels')).json()).toMatchObject({ onboarding_completed: true, current_step: null });
    await act('finish');

    const hook = await app.inject({
      method: 'POST',
      url: '/rest/v1/webhook_configurations',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: { name: 'broken', url: `${receiver.url}/broken`, events: ['contact.created'] },
    });
    expect(hook.statusCode).toBe(201);
    const test = await call('POST', '/functions/v1/webhooks/{id}/test', { params: { id: hook.json()[0].id }, headers: t.session });
    expect(test.json()).toMatchObject({ success: false, status_code: 500 });
    await call('POST', '/functions/v1/webhooks/logs/{id}/retry', { params: { id: test.json().log_id }, headers: t.session });
  });

  it('should answer the messaging functions as declared (sends, inbox, channels, receivers, media)', async () => {
    const t = await createTestTenant(app);
    const org = t.ctx.organizationId;
    await app.get(OrganizationService).setSetting(org, 'appgain_api_key', 'k-123');
    const made = await call('POST', '/functions/v1/messaging/channel-accounts', { headers: t.session, payload: { kind: 'chat_app', name: 'Main line' } });
    const { channel_account: account, inbound_token: token } = made.json() as { channel_account: { id: string }; inbound_token: string };
    const send = { to: '201001110001', message: 'Your order shipped', organizationId: org, contactName: 'Sara' };
    const sent = await call('POST', '/functions/v1/chat-lite-send', { headers: t.key, payload: send });
    const inbound = { type: 'message', id: `wamid.${randomUUID()}`, from: '201001110001@s.whatsapp.net', name: 'Sara', text: 'Is it in stock?' };
    const params = { channelAccountId: account.id };
    await call('POST', '/functions/v1/chat-lite-webhook/{channelAccountId}', { params, headers: { 'x-channel-token': token }, payload: inbound });

    const conversation = { params: { id: sent.json().conversationId as string }, headers: t.session };
    await call('GET', '/functions/v1/messaging/conversations', { headers: t.key, query: '?status=OPEN&limit=5' });
    await call('GET', '/functions/v1/messaging/unread-counts', { headers: t.session, query: '?mine=false' });
    await call('GET', '/functions/v1/messaging/conversations/{id}', conversation);
    await call('POST', '/functions/v1/messaging/conversations/{id}/reply', { ...conversation, payload: { message: 'Yes, it is' } });
    await call('POST', '/functions/v1/messaging/conversations/{id}/read', conversation);
    await call('PATCH', '/functions/v1/messaging/conversations/{id}/status', {
      ...conversation,
      payload: { status: 'SNOOZED', snoozed_until: '2099-01-01T00:00:00Z' },
    });
    await call('PATCH', '/functions/v1/messaging/conversations/{id}/assignee', { ...conversation, payload: { assignee_id: t.ctx.userId } });
    // Scheduled sends: made, listed, read, edited and cancelled (the pass that sends them has its own tests).
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await call('POST', '/functions/v1/messaging/conversations/{id}/scheduled-messages', {
      ...conversation,
      payload: { text: 'Later today', send_at: scheduledAt },
    });
    const scheduledMessage = { params: { id: scheduled.json().id as string }, headers: t.session };
    await call('GET', '/functions/v1/messaging/scheduled-messages', { headers: t.key, query: '?status=scheduled' });
    await call('GET', '/functions/v1/messaging/scheduled-messages/{id}', scheduledMessage);
    await call('PATCH', '/functions/v1/messaging/scheduled-messages/{id}', { ...scheduledMessage, payload: { text: 'Later tonight' } });
    await call('DELETE', '/functions/v1/messaging/scheduled-messages/{id}', scheduledMessage);
    const channel = { params: { id: account.id }, headers: t.session };
    await call('POST', '/functions/v1/messaging/channel-accounts/{id}/rotate-token', channel);
    await call('PATCH', '/functions/v1/messaging/channel-accounts/{id}', { ...channel, payload: { is_active: false } });
    const page = await call('POST', '/functions/v1/messaging/channel-accounts', {
      headers: t.session,
      payload: { kind: 'messenger', name: 'Shop page', page_id: PAGE_ID, page_access_token: 'EAAG-page-access-token-0123456789' },
    });
    expect(page.json()).not.toHaveProperty('inbound_token');
    const tested = await call('POST', '/functions/v1/messaging/channel-accounts/{id}/test', {
      params: { id: page.json().channel_account.id },
      headers: t.session,
    });
    expect(tested.json()).toEqual({ ok: true });
    await call('GET', '/functions/v1/messaging/channel-accounts', { headers: t.key });

    const challenge = await call('GET', '/functions/v1/meta-webhook', {
      query: `?hub.mode=subscribe&hub.verify_token=${META_VERIFY}&hub.challenge=1158201444`,
    });
    expect(challenge.body).toBe('1158201444');
    const message = { sender: { id: 'psid-1' }, recipient: { id: PAGE_ID }, timestamp: Date.now(), message: { mid: `m_${randomUUID()}`, text: 'Hello page' } };
    const event = JSON.stringify({ object: 'page', entry: [{ id: PAGE_ID, time: Date.now(), messaging: [message] }] });
    const signature = `sha256=${createHmac('sha256', META_SECRET).update(event).digest('hex')}`;
    const stored = await call('POST', '/functions/v1/meta-webhook', {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      payload: event,
    });
    expect(stored.json()).toEqual({ received: true, stored: 1 });

    // An SMS account, its credentials check, and an inbound SMS signed as the provider signs it.
    const smsToken = randomBytes(16).toString('hex');
    const sms = await call('POST', '/functions/v1/messaging/channel-accounts', {
      headers: t.key,
      payload: { kind: 'sms', name: 'Campaigns', account_sid: `AC${randomBytes(16).toString('hex')}`, auth_token: smsToken, from_number: '+14155550188' },
    });
    const smsId = sms.json().channel_account.id as string;
    expect((await call('POST', '/functions/v1/messaging/channel-accounts/{id}/test', { params: { id: smsId }, headers: t.key })).json()).toEqual({ ok: true });
    const form = { MessageSid: `SM${randomBytes(16).toString('hex')}`, From: '+14155550199', To: '+14155550188', Body: 'STOP' };
    const address = `${publicUrl(runtime.config)}${sms.json().inbound_path}`;
    const signed = Object.keys(form)
      .sort()
      .reduce((acc, key) => acc + key + form[key as keyof typeof form], address);
    const twilio = await call('POST', '/functions/v1/sms-webhook/{channelAccountId}', {
      params: { channelAccountId: smsId },
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': createHmac('sha1', smsToken).update(signed).digest('base64') },
      payload: new URLSearchParams(form).toString(),
    });
    expect(twilio.body).toBe('<Response></Response>');

    // A re-hosted inbound image in the local stand-in for the CDN, as the inbound processor stores it.
    const image = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(64)]);
    const name = `${createHash('sha256').update(image).digest('hex')}.png`;
    await app.get<symbol, ObjectStorage>(OBJECT_STORAGE).put(`media/${org}/${name}`, image, { contentType: 'image/png' });
    const file = await call('GET', '/functions/v1/messaging/media/{organizationId}/{name}', { params: { organizationId: org, name } });
    expect([file.headers['content-type'], file.rawPayload.equals(image)]).toEqual(['image/png', true]);
  });

  it('should answer the paced queue functions as declared (queued send, queue, items, pacing, pause, resume)', async () => {
    const t = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'appgain_api_key', 'k-queue');
    const made = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: { kind: 'chat_app', name: 'Queue' },
    });
    const channel = { params: { id: made.json().channel_account.id as string }, headers: t.session };
    await call('PATCH', '/functions/v1/messaging/channel-accounts/{id}', { ...channel, payload: { pacing: { gap_seconds: [0, 0], quiet_hours: null } } });
    await call('GET', '/functions/v1/messaging/channel-accounts/{id}', channel);
    const queued = await call('POST', '/functions/v1/messaging/outbound', {
      headers: t.key,
      payload: { channel_account_id: channel.params.id, to: '201001110002', text: 'Your code is 1234' },
    });
    expect(queued.json()).toMatchObject({ status: 'QUEUED' });
    await call('GET', '/functions/v1/messaging/outbound-queue', { headers: t.key });
    await call('GET', '/functions/v1/messaging/outbound-queue/items', { headers: t.session, query: `?channel_account_id=${channel.params.id}` });
    await call('POST', '/functions/v1/messaging/channel-accounts/{id}/pause', { ...channel, payload: { reason: 'review' } });
    await call('POST', '/functions/v1/messaging/channel-accounts/{id}/resume', channel);
  });

  it('should answer the calls functions as declared (call recordings, Zoom settings and webhook)', async () => {
    const t = await createTestTenant(app);
    const org = t.ctx.organizationId;
    await app.get(OrganizationService).setSetting(org, 'suite_id', 'answers-suite');
    const boundary = `----answers${randomBytes(6).toString('hex')}`;
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const upload = Buffer.concat([
      Buffer.from(field('customer_phone', '+201001234567') + field('direction', 'outbound') + field('duration_seconds', '125')),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.ogg"\r\nContent-Type: audio/ogg\r\n\r\nOggS\x00\x02`),
      randomBytes(2048),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers = { ...t.key, 'content-type': `multipart/form-data; boundary=${boundary}` };
    const registered = await call('POST', '/functions/v1/mobile-api/call-recording', { headers, payload: upload });
    expect(registered.json()).toMatchObject({ success: true, recording_stored: true, contact_matched: false });

    const secret = 'answers-zoom-secret-token';
    await call('PUT', '/functions/v1/zoom-settings', { headers: t.session, payload: { secret_token: secret } });
    expect((await call('GET', '/functions/v1/zoom-settings', { headers: t.session })).json()).toMatchObject({ secret_token_set: true });
    const zoom = (event: object) => {
      const body = JSON.stringify(event);
      const ts = String(Math.floor(Date.now() / 1000));
      const zoomHeaders = { 'content-type': 'application/json', 'x-zm-request-timestamp': ts, 'x-zm-signature': zoomSignature(secret, ts, Buffer.from(body)) };
      return call('POST', '/functions/v1/zoom-webhook/{organizationId}', { params: { organizationId: org }, headers: zoomHeaders, payload: body });
    };
    const validation = await zoom({ event: 'endpoint.url_validation', payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: Date.now() });
    expect(validation.json().plainToken).toBe('qgg8vlvZRS6UYooatFL8Aw');
    expect((await zoom({ event: 'meeting.started', payload: {}, event_ts: Date.now() })).json()).toEqual({ received: true, ignored: true });
    const recording = {
      uuid: `uuid-${randomUUID()}`,
      id: 84759302112,
      host_id: 'host-1',
      host_email: 'host@example.com',
      topic: 'Quarterly review',
      start_time: '2026-11-24T10:00:00Z',
      duration: 42,
      recording_files: [
        {
          id: 'f-audio',
          file_type: 'M4A',
          file_extension: 'M4A',
          recording_type: 'audio_only',
          file_size: 2048,
          download_url: `${receiver.url}/rec/audio`,
        },
      ],
    };
    const imported = await zoom({
      event: 'recording.completed',
      event_ts: Date.now(),
      download_token: 'zoom-download-token',
      payload: { account_id: 'acc', object: recording },
    });
    expect(imported.json().call_record_ids).toHaveLength(1);
  });

  it('should answer the AI re-engagement functions as declared', async () => {
    const t = await createTestTenant(app);
    const org = t.ctx.organizationId;
    await call('GET', '/functions/v1/reengagement/settings', { headers: t.session });
    // The peer answers GET <base>/models with 200: the key's check passes.
    const payload = { provider: 'custom', custom_key: 'sk-answers-key-0123456', custom_base_url: `${peerBase}/ai`, trigger_hours: 21 };
    const saved = await call('PUT', '/functions/v1/reengagement/settings', { headers: t.session, payload });
    expect(saved.json()).toMatchObject({ has_custom_key: true, custom_key_last4: '3456', custom_key_check: { ok: true } });
    await app.get(OrganizationService).setSetting(org, 'appgain_api_key', 'k-123');
    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: '201001234599', message: 'Hi', organizationId: org },
    });
    const { conversationId, contactId } = sent.json() as { conversationId: string; contactId: string };
    // Nudges go through the chat-app account's paced queue: its quiet hours (at the recipient's time)
    // and per-recipient gap would hold them at some hours of the day, so they are lifted here.
    const [account] = await runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ id: string }>(`SELECT channel_account_id AS id FROM conversations WHERE id = $1`, [conversationId]),
    );
    const pacing = { quiet_hours: null, gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_recipient_min_gap_seconds: 0 };
    const paced = await app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${account.id}`, headers: t.session, payload: { pacing } });
    expect(paced.statusCode).toBe(200);
    // Drafts as the scheduler leaves them in approval mode.
    const draft = async (hoursAgo: number) => {
      const [row] = await runtime.db.inTenant(t.ctx, (tx) =>
        tx.query<{ id: string }>(
          `INSERT INTO reengagement_nudges (organization_id, conversation_id, contact_id, status, text, provider, last_customer_message_at, window_closes_at)
           VALUES (app_org_id(), $1, $2, 'draft', 'Still interested?', 'default', now() - make_interval(hours => $3), now() + interval '2 hours')
           RETURNING id`,
          [conversationId, contactId, hoursAgo],
        ),
      );
      return { id: row.id };
    };
    const listed = await call('GET', '/functions/v1/reengagement/drafts', { headers: t.session, query: '?status=draft' });
    expect(listed.json().drafts).toEqual([]);
    const approved = await call('POST', '/functions/v1/reengagement/drafts/{id}/approve', { params: await draft(20), headers: t.session });
    expect(approved.json().nudge).toMatchObject({ status: 'sent' });
    const edited = await call('POST', '/functions/v1/reengagement/drafts/{id}/edit', {
      params: await draft(21),
      headers: t.session,
      payload: { text: 'Edited' },
    });
    expect(edited.json().nudge).toMatchObject({ status: 'sent', text: 'Edited' });
    await call('POST', '/functions/v1/reengagement/drafts/{id}/skip', { params: await draft(22), headers: t.session });
    await call('GET', '/functions/v1/reengagement/conversations/{id}', { params: { id: conversationId }, headers: t.session });
    const enabled = await call('POST', '/functions/v1/reengagement/conversations/{id}/enable', { params: { id: conversationId }, headers: t.session });
    expect(enabled.json()).toMatchObject({ disabled: false, unanswered_count: 0 });
  });

  it('should answer the campaigns functions as declared (previews, broadcasts and their life, report)', async () => {
    const t = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'appgain_api_key', 'k-campaigns');
    const rest = async (table: string, payload: object) => {
      const res = await app.inject({ method: 'POST', url: `/rest/v1/${table}`, headers: { ...t.session, prefer: 'return=representation' }, payload });
      expect(res.statusCode).toBe(201);
      return res.json()[0] as { id: string };
    };
    const ada = await rest('contacts', { first_name: 'Ada', tags: ['vip'], phones: ['+201001239001'], opt_in_status: true });
    await rest('contacts', { first_name: 'Bea', tags: ['vip'], phones: ['+201001239002'], opt_in_status: false });
    const segment = await rest('segments', { name: 'VIP', filter: 'tags=cs.{vip}' });
    const preview = await call('GET', '/functions/v1/campaigns/segments/{id}/preview', { params: { id: segment.id }, headers: t.session });
    expect(preview.json()).toMatchObject({ count: 2, reachable: 1, skipped: { no_opt_in: 1 } });
    await call('POST', '/functions/v1/campaigns/audience/preview', { headers: t.key, payload: { audience: { contact_ids: [ada.id] } } });
    const chat = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: { kind: 'chat_app', name: 'Offers' },
    });
    const accountId = chat.json().channel_account.id as string;
    const text = 'Hello {{contact.first_name | there}}, our sale starts today';
    const rendered = await call('POST', '/functions/v1/campaigns/content/preview', {
      headers: t.session,
      payload: { channel_account_id: accountId, text, contact_id: ada.id },
    });
    expect(rendered.json()).toEqual({ text: 'Hello Ada, our sale starts today' });
    const sms = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: {
        kind: 'sms',
        name: 'Offers SMS',
        account_sid: `AC${randomBytes(16).toString('hex')}`,
        auth_token: 'campaigns-sms-token',
        from_number: '+14155550177',
      },
    });
    const smsPreview = await call('POST', '/functions/v1/campaigns/content/preview', {
      headers: t.session,
      payload: { channel_account_id: sms.json().channel_account.id, text: 'Sale: 20 € off' },
    });
    expect(smsPreview.json()).toEqual({ text: 'Sale: 20 € off', encoding: 'GSM-7', segments: 1 });

    const draft = { name: 'Spring sale', channel_account_id: accountId, audience: { segment_id: segment.id }, content: { text } };
    const created = await call('POST', '/functions/v1/campaigns/broadcasts', { headers: t.session, payload: draft });
    const broadcast = { params: { id: created.json().id as string }, headers: t.session };
    await call('GET', '/functions/v1/campaigns/broadcasts', { headers: t.key, query: '?status=draft&limit=10' });
    const at = new Date(Date.now() + 86_400_000).toISOString();
    expect((await call('POST', '/functions/v1/campaigns/broadcasts/{id}/schedule', { ...broadcast, payload: { at } })).json()).toMatchObject({
      status: 'scheduled',
    });
    const started = await call('POST', '/functions/v1/campaigns/broadcasts/{id}/start', broadcast);
    expect(started.json()).toMatchObject({ status: 'sending', counts: { queued: 1, skipped_no_opt_in: 1, total: 2 } });
    await call('POST', '/functions/v1/campaigns/broadcasts/{id}/pause', broadcast);
    await call('POST', '/functions/v1/campaigns/broadcasts/{id}/resume', broadcast);
    await call('GET', '/functions/v1/campaigns/broadcasts/{id}', broadcast);
    expect((await call('GET', '/functions/v1/campaigns/broadcasts/{id}/report', broadcast)).json()).toMatchObject({ counts: { total: 2 } });
    const cancelled = await call('POST', '/functions/v1/campaigns/broadcasts/{id}/cancel', broadcast);
    expect(cancelled.json()).toMatchObject({ status: 'cancelled' });
  });

  it('should answer the sequence functions as declared (their life, versions, enrolments and exits)', async () => {
    const t = await createTestTenant(app);
    const contact = await app.inject({
      method: 'POST',
      url: '/rest/v1/contacts',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: { first_name: 'Ada', phones: ['+201001239101'], opt_in_status: true },
    });
    const chat = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: t.key,
      payload: { kind: 'chat_app', name: 'Drip' },
    });
    const steps = [
      { delay: {}, content: { text: 'Welcome {{contact.first_name | there}}' } },
      { delay: { days: 1 }, at_time: '10:00', content: { text: 'Day two' } },
    ];
    const created = await call('POST', '/functions/v1/campaigns/sequences', {
      headers: t.session,
      payload: { name: 'Welcome', channel_account_id: chat.json().channel_account.id, steps },
    });
    const sequence = { params: { id: created.json().id as string }, headers: t.session };
    await call('GET', '/functions/v1/campaigns/sequences', { headers: t.key, query: '?status=draft&limit=10' });
    await call('POST', '/functions/v1/campaigns/sequences/{id}/activate', sequence);
    const changed = await call('PATCH', '/functions/v1/campaigns/sequences/{id}', { ...sequence, payload: { exit_on: { conversation_resolved: true } } });
    expect(changed.json()).toMatchObject({ version: 2, status: 'active' });
    const enrolled = await call('POST', '/functions/v1/campaigns/sequences/{id}/enrollments', {
      ...sequence,
      payload: { contact_ids: [contact.json()[0].id] },
    });
    expect(enrolled.json()).toEqual({ enrolled: 1, already_enrolled: 0, skipped: { no_opt_in: 0, no_phone: 0 } });
    const [enrollment] = (
      await app.inject({ method: 'GET', url: `/rest/v1/sequence_enrollments?sequence_id=eq.${sequence.params.id}`, headers: t.session })
    ).json() as { id: string }[];
    const exited = await call('DELETE', '/functions/v1/campaigns/sequences/{id}/enrollments/{enrollmentId}', {
      params: { id: sequence.params.id, enrollmentId: enrollment.id },
      headers: t.session,
    });
    expect(exited.json()).toMatchObject({ status: 'exited', exit_reason: 'manual' });
    await call('POST', '/functions/v1/campaigns/sequences/{id}/pause', sequence);
    expect((await call('GET', '/functions/v1/campaigns/sequences/{id}', sequence)).json()).toMatchObject({ status: 'paused', enrollments: { exited: 1 } });
  });

  it('should answer the automation dry run as declared', async () => {
    const t = await createTestTenant(app);
    const rule = await app.inject({
      method: 'POST',
      url: '/rest/v1/automation_rules',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: {
        name: 'VIP contacts',
        event: 'contact.updated',
        conditions: {
          all: [
            { field: 'contact.tags', operator: 'contains', value: 'vip' },
            { field: 'contact.custom_fields.plan', operator: 'is_set' },
          ],
        },
        actions: [{ type: 'add_note', text: 'VIP: {{contact.first_name | someone}}' }],
      },
    });
    const contact = await app.inject({
      method: 'POST',
      url: '/rest/v1/contacts',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: { first_name: 'Ada', tags: ['vip'] },
    });
    const tested = await call('POST', '/functions/v1/automation/rules/{id}/test', {
      params: { id: rule.json()[0].id },
      headers: t.session,
      payload: { subject_id: contact.json()[0].id },
    });
    expect(tested.json()).toMatchObject({ matched: false, conditions: [{ matched: true }, { actual: null, matched: false }] });
  });

  it('should answer publishing a bot flow and stopping its session as declared', async () => {
    const t = await createTestTenant(app);
    const org = t.ctx.organizationId;
    await app.get(OrganizationService).setSetting(org, 'appgain_api_key', 'k-123');
    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: '201001234598', message: 'Hi', organizationId: org },
    });
    const { conversationId, contactId } = sent.json() as { conversationId: string; contactId: string };
    const [account] = await runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ id: string }>(`SELECT channel_account_id AS id FROM conversations WHERE id = $1`, [conversationId]),
    );
    const flow = await app.inject({
      method: 'POST',
      url: '/rest/v1/bot_flows',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: {
        name: 'Welcome',
        channel_account_ids: [account.id],
        trigger: { type: 'new_conversation' },
        definition: {
          start: 'name',
          nodes: [
            { id: 'name', type: 'ask', text: 'Your name?', save_as: 'contact.first_name', next: 'bye' },
            { id: 'bye', type: 'end' },
          ],
        },
      },
    });
    const flowId = (flow.json() as { id: string }[])[0].id;
    const published = await call('POST', '/functions/v1/automation/bots/{id}/publish', { params: { id: flowId }, headers: t.session });
    expect(published.json()).toMatchObject({ bot_flow_id: flowId, version: 1 });
    // A session waiting at the question, as the bot runtime leaves it.
    const [session] = await runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ id: string }>(
        `INSERT INTO bot_sessions (organization_id, conversation_id, contact_id, bot_flow_id, version, status, current_node, expires_at)
         VALUES (app_org_id(), $1, $2, $3, 1, 'waiting', 'name', now() + interval '4 hours') RETURNING id`,
        [conversationId, contactId, flowId],
      ),
    );
    const stopped = await call('POST', '/functions/v1/automation/bot-sessions/{id}/stop', { params: { id: session.id }, headers: t.session });
    expect(stopped.json()).toMatchObject({ id: session.id, status: 'stopped', end_reason: 'agent_stop' });
  });

  it('should have called every operation the document gives a 2xx schema', () => {
    const described = operationsOf(doc)
      .filter(({ operation }) => Object.entries(operation.responses).some(([status, response]) => Number(status) < 300 && response.content))
      .map(({ name }) => name);
    // 83, campaigns' 12 and 8 of sequences, and the bots' publish and stop.
    expect(described).toHaveLength(105);
    expect([...checked].sort()).toEqual(described.sort());
  });
});
