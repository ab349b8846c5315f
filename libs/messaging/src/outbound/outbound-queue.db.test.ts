import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';
import { OutboundDispatcher } from './dispatcher';
import { OutboundQueueWorker } from './queue.worker';

let chat: ChatLiteTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;

beforeAll(async () => {
  chat = await startChatLiteTestApp();
  ({ app, runtime } = chat);
});
afterAll(() => chat.close());

const BASE = '/functions/v1/messaging';
type Method = 'GET' | 'POST' | 'PATCH';
const call = (headers: Record<string, string>, method: Method, url: string, payload?: unknown) =>
  app.inject({
    method,
    url: `${BASE}${url}`,
    headers: { ...headers, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
  });

// Pacing that lets the queue send at once (the tests must not wait for gaps or quiet hours).
const AT_ONCE = { gap_seconds: [0, 0], cold_gap_seconds: [0, 0], quiet_hours: null, per_recipient_min_gap_seconds: 0 };

async function newAccount(t: TestTenant, pacing: object | null = AT_ONCE): Promise<string> {
  const res = await call(t.key, 'POST', '/channel-accounts', { kind: 'chat_app', name: 'Line' });
  expect(res.statusCode).toBe(201);
  const id = res.json().channel_account.id as string;
  if (pacing) expect((await call(t.session, 'PATCH', `/channel-accounts/${id}`, { pacing })).statusCode).toBe(200);
  return id;
}

const worker = () => app.get(OutboundQueueWorker);
const messagesOf = (t: TestTenant) => chat.rows<{ n: number }>(t, 'SELECT count(*)::int AS n FROM messages').then(([r]) => r.n);
const rowOf = async (t: TestTenant, id: string) =>
  (
    await chat.rows<{ status: string; origin: string; origin_id: string | null; scheduled_for: Date | null; external_id: string | null; content: string }>(
      t,
      'SELECT status, origin, origin_id, scheduled_for, external_id, content FROM messages WHERE id = $1',
      [id],
    )
  )[0];

describe('pacing on GET/PATCH /functions/v1/messaging/channel-accounts/<id>', () => {
  it('should show the kind defaults, store a PATCH as overrides merged over the earlier ones, and reset them with null', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t, null);
    const shown = await call(t.key, 'GET', `/channel-accounts/${id}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toMatchObject({
      id,
      kind: 'chat_app',
      paused: false,
      paused_at: null,
      paused_reason: null,
      pacing_overrides: {},
      pacing: { gap_seconds: [3, 9], cold_gap_seconds: [30, 60], per_hour: 80, per_day: 500, warmup: true, quiet_hours: { start: '21:00', end: '08:00' } },
    });
    const first = await call(t.session, 'PATCH', `/channel-accounts/${id}`, { pacing: { gap_seconds: [1, 2.5], per_day: 300 } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      pacing: { gap_seconds: [1, 2.5], per_day: 300, per_hour: 80 },
      pacing_overrides: { gap_seconds: [1, 2.5], per_day: 300 },
    });
    const admin = await memberHeaders(app, t, 'ADMIN');
    const second = await call(admin, 'PATCH', `/channel-accounts/${id}`, { pacing: { quiet_hours: null } });
    expect(second.json().pacing_overrides).toEqual({ gap_seconds: [1, 2.5], per_day: 300, quiet_hours: null });
    expect(second.json().pacing).toMatchObject({ quiet_hours: null, gap_seconds: [1, 2.5] });
    const [stored] = await chat.rows<{ pacing: object }>(t, 'SELECT pacing FROM channel_accounts WHERE id = $1', [id]);
    expect(stored.pacing).toEqual({ gap_seconds: [1, 2.5], per_day: 300, quiet_hours: null });
    // is_active and pacing together; then back to the defaults.
    const both = await call(t.key, 'PATCH', `/channel-accounts/${id}`, { is_active: false, pacing: { warmup: false } });
    expect(both.json()).toMatchObject({ is_active: false, pacing: { warmup: false } });
    const reset = await call(t.key, 'PATCH', `/channel-accounts/${id}`, { pacing: null });
    expect(reset.json()).toMatchObject({ pacing_overrides: {}, pacing: { gap_seconds: [3, 9], warmup: true }, is_active: false });
    // Any member reads it.
    expect((await call(await memberHeaders(app, t, 'AGENT'), 'GET', `/channel-accounts/${id}`)).statusCode).toBe(200);
  });

  it('should answer 400 naming the field of every bad pacing, 403 to an agent, 404 for another organization, and change nothing', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t, null);
    const cases: [string, unknown][] = [
      ['pacing.gap_seconds', { gap_seconds: [5, 5] }],
      ['pacing.gap_seconds', { gap_seconds: [9, 3] }],
      ['pacing.gap_seconds', { gap_seconds: '3-9' }],
      ['pacing.gap_seconds[0]', { gap_seconds: [-1, 3] }],
      ['pacing.cold_gap_seconds[1]', { cold_gap_seconds: [1, 'x'] }],
      ['pacing.per_hour', { per_hour: 0 }],
      ['pacing.per_day', { per_day: 1.5 }],
      ['pacing.warmup', { warmup: 'yes' }],
      ['pacing.quiet_hours.start', { quiet_hours: { start: '25:00', end: '08:00' } }],
      ['pacing.quiet_hours.when', { quiet_hours: { start: '21:00', end: '08:00', when: 'x' } }],
      ['pacing.quiet_hours', { quiet_hours: '21-8' }],
      ['pacing.per_recipient_per_hour', { per_recipient_per_hour: 1e9 }],
      ['pacing.auto_pause_after_failures', { auto_pause_after_failures: 0 }],
      ['pacing.speed', { speed: 'fast' }],
      ['pacing', 'fast'],
      ['pacing', [1, 2]],
    ];
    for (const [field, pacing] of cases) {
      const res = await call(t.session, 'PATCH', `/channel-accounts/${id}`, { pacing });
      expect({ field, status: res.statusCode, message: res.json().error }).toEqual({ field, status: 400, message: expect.stringContaining(field) });
    }
    for (const body of [{}, { is_active: 'no' }, { pacing: {}, extra: 1 }, '[1]', 'not json']) {
      expect((await call(t.session, 'PATCH', `/channel-accounts/${id}`, body)).statusCode).toBe(400);
    }
    const agent = await memberHeaders(app, t, 'AGENT');
    const forbidden = await call(agent, 'PATCH', `/channel-accounts/${id}`, { pacing: { per_day: 10 } });
    expect([forbidden.statusCode, forbidden.json().code]).toEqual([403, 'insufficient_role']);
    const other = await createTestTenant(app);
    expect((await call(other.key, 'PATCH', `/channel-accounts/${id}`, { pacing: { per_day: 10 } })).statusCode).toBe(404);
    expect((await call(other.key, 'GET', `/channel-accounts/${id}`)).statusCode).toBe(404);
    expect((await call(t.key, 'GET', `/channel-accounts/${randomUUID()}`)).statusCode).toBe(404);
    expect((await call(t.key, 'GET', '/channel-accounts/not-a-uuid')).statusCode).toBe(404);
    expect((await call(t.key, 'PATCH', '/channel-accounts/not-a-uuid', { pacing: { per_day: 10 } })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${BASE}/channel-accounts/${id}` })).statusCode).toBe(401);
    const [stored] = await chat.rows<{ pacing: object }>(t, 'SELECT pacing FROM channel_accounts WHERE id = $1', [id]);
    expect(stored.pacing).toEqual({});
  });
});

describe('POST /functions/v1/messaging/channel-accounts/<id>/pause and /resume', () => {
  it('should pause with the reason, idempotently, and resume clearing the pause, the failures and the sleep', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t);
    const paused = await call(t.session, 'POST', `/channel-accounts/${id}/pause`);
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toMatchObject({ id, paused: true, paused_reason: 'manual', paused_at: expect.any(String) });
    const again = await call(t.key, 'POST', `/channel-accounts/${id}/pause`, { reason: 'number under review' });
    expect(again.json()).toMatchObject({ paused: true, paused_reason: 'manual: number under review', paused_at: paused.json().paused_at });
    await runtime.db.systemQuery(`UPDATE channel_accounts SET consecutive_failures = 4, next_send_at = now() + interval '1 hour' WHERE id = $1`, [id]);
    const resumed = await call(t.session, 'POST', `/channel-accounts/${id}/resume`);
    expect(resumed.json()).toMatchObject({ paused: false, paused_at: null, paused_reason: null });
    const [row] = await chat.rows<{ consecutive_failures: number; next_send_at: Date | null }>(
      t,
      'SELECT consecutive_failures, next_send_at FROM channel_accounts WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ consecutive_failures: 0, next_send_at: null });
    const twice = await call(t.session, 'POST', `/channel-accounts/${id}/resume`);
    expect([twice.statusCode, twice.json().paused]).toEqual([200, false]);
  });

  it('should answer 403 to an agent, 404 for unknown or foreign ids and 400 for a bad reason, and change nothing', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t);
    const agent = await memberHeaders(app, t, 'AGENT');
    for (const action of ['pause', 'resume']) {
      const res = await call(agent, 'POST', `/channel-accounts/${id}/${action}`);
      expect([action, res.statusCode, res.json().code]).toEqual([action, 403, 'insufficient_role']);
    }
    const other = await createTestTenant(app);
    for (const [headers, target] of [
      [other.key, id],
      [t.key, randomUUID()],
      [t.key, 'not-a-uuid'],
    ] as const) {
      expect((await call(headers, 'POST', `/channel-accounts/${target}/pause`)).statusCode).toBe(404);
      expect((await call(headers, 'POST', `/channel-accounts/${target}/resume`)).statusCode).toBe(404);
    }
    for (const body of [{ reason: 5 }, { reason: '' }, { reason: 'x'.repeat(201) }, { reason: 'nul \u0000' }, { why: 'x' }, '"text"']) {
      expect((await call(t.key, 'POST', `/channel-accounts/${id}/pause`, body)).statusCode).toBe(400);
    }
    expect((await app.inject({ method: 'POST', url: `${BASE}/channel-accounts/${id}/pause` })).statusCode).toBe(401);
    expect((await call(t.key, 'GET', `/channel-accounts/${id}`)).json()).toMatchObject({ paused: false });
  });
});

describe('POST /functions/v1/messaging/outbound', () => {
  it('should store it QUEUED with scheduled_for and origin api_queued, then the worker sends it once', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t);
    const number = chat.newNumber();
    const res = await call(t.key, 'POST', '/outbound', { channel_account_id: id, to: `+${number}`, text: 'Your code is 4411' });
    expect(res.statusCode).toBe(202);
    const answer = res.json();
    expect(answer).toEqual({
      message_id: expect.any(String),
      message_ids: [answer.message_id],
      conversation_id: expect.any(String),
      status: 'QUEUED',
      scheduled_for: expect.any(String),
    });
    expect(await rowOf(t, answer.message_id)).toMatchObject({ status: 'QUEUED', origin: 'api_queued', origin_id: null, scheduled_for: expect.any(Date) });
    expect(chat.provider.callsTo(number)).toHaveLength(0);
    // The contact was made by its number, and the conversation shows the message waiting.
    const conversation = await call(t.session, 'GET', `/conversations/${answer.conversation_id}`);
    expect(conversation.json()).toMatchObject({
      channel_account_id: id,
      messages: [expect.objectContaining({ status: 'QUEUED', scheduled_for: answer.scheduled_for })],
    });
    const contacts = await app.get(ContactService).get(t.ctx, conversation.json().contact_id);
    expect(contacts.phones).toEqual([`+${number}`]);

    expect(await worker().sendOn(id)).toBe(true);
    expect(chat.provider.callsTo(number).map((c) => c.body.UOWCHAT.message)).toEqual(['Your code is 4411']);
    expect(await rowOf(t, answer.message_id)).toMatchObject({ status: 'SENT', origin: 'api_queued', external_id: expect.stringMatching(/^ext-/) });
    expect(await worker().sendOn(id)).toBe(false);
    expect(chat.provider.callsTo(number)).toHaveLength(1);

    // The same contact again, by session: by contact_id, then by conversation_id, with an image.
    const contactId = conversation.json().contact_id as string;
    const byContact = await call(t.session, 'POST', '/outbound', { channel_account_id: id, contact_id: contactId, text: 'Second' });
    expect([byContact.statusCode, byContact.json().conversation_id]).toEqual([202, answer.conversation_id]);
    const image = 'https://cdn.example.com/receipt.png';
    const byConversation = await call(t.session, 'POST', '/outbound', {
      channel_account_id: id,
      conversation_id: answer.conversation_id,
      text: 'Your receipt',
      media_url: image,
      media_kind: 'image',
    });
    expect(byConversation.statusCode).toBe(202);
    expect(await worker().sendOn(id)).toBe(true);
    expect(await worker().sendOn(id)).toBe(true);
    const bodies = chat.provider.callsTo(number).map((c) => [c.body.UOWCHAT.message, c.body.UOWCHAT.imageUrl]);
    expect(bodies).toEqual([
      ['Your code is 4411', ''],
      ['Second', ''],
      ['Your receipt', image],
    ]);
    expect((await rowOf(t, byConversation.json().message_id)).status).toBe('SENT');
  });

  it('should not send on a paused account until it is resumed', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t);
    const number = chat.newNumber();
    expect((await call(t.session, 'POST', `/channel-accounts/${id}/pause`, { reason: 'holiday' })).statusCode).toBe(200);
    const res = await call(t.key, 'POST', '/outbound', { channel_account_id: id, to: number, text: 'Waits' });
    expect(res.statusCode).toBe(202);
    expect(await worker().sendOn(id)).toBe(false);
    expect(await worker().sendOn(id)).toBe(false);
    expect(chat.provider.callsTo(number)).toHaveLength(0);
    expect((await rowOf(t, res.json().message_id)).status).toBe('QUEUED');
    const summary = (await call(t.key, 'GET', '/outbound-queue')).json().accounts[0];
    expect(summary).toMatchObject({ paused: true, paused_reason: 'manual: holiday', depth: { total: 1 }, next_send_at: null, eta_last: null });

    expect((await call(t.session, 'POST', `/channel-accounts/${id}/resume`)).statusCode).toBe(200);
    expect(await worker().sendOn(id)).toBe(true);
    expect(chat.provider.callsTo(number).map((c) => c.body.UOWCHAT.message)).toEqual(['Waits']);
    expect((await rowOf(t, res.json().message_id)).status).toBe('SENT');
  });

  it('should answer 400 for a malformed request, 404 for foreign or unknown ids, 401 without credentials, and store nothing', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t);
    const other = await chat.newTenant();
    const otherAccount = await newAccount(other);
    const otherSend = await call(other.key, 'POST', '/outbound', { channel_account_id: otherAccount, to: chat.newNumber(), text: 'Theirs' });
    expect(otherSend.statusCode).toBe(202);
    const foreign = { conversation: otherSend.json().conversation_id as string };
    const [{ contact_id: foreignContact }] = await chat.rows<{ contact_id: string }>(other, 'SELECT contact_id FROM conversations WHERE id = $1', [
      foreign.conversation,
    ]);
    const before = await messagesOf(t);
    const ok = { channel_account_id: id, to: chat.newNumber(), text: 'Hi' };
    const bad: [number, unknown][] = [
      [400, { to: ok.to, text: 'Hi' }],
      [400, { ...ok, channel_account_id: 'not-a-uuid' }],
      [400, { ...ok, channel_account_id: 12 }],
      [400, { channel_account_id: id, text: 'Hi' }],
      [400, { ...ok, contact_id: randomUUID() }],
      [400, { ...ok, text: undefined }],
      [400, { ...ok, text: '' }],
      [400, { ...ok, text: 42 }],
      [400, { ...ok, text: 'a'.repeat(4097) }],
      [400, { ...ok, text: 'nul \u0000 byte' }],
      [400, { ...ok, to: 'not a phone' }],
      [400, { ...ok, to: ['2010'] }],
      [400, { ...ok, to: '1'.repeat(100) }],
      [400, { ...ok, media_url: 'javascript:alert(1)' }],
      [400, { ...ok, media_url: 'https://x.example/a.jpg', media_kind: 'audio' }],
      [400, { ...ok, media_kind: 'image' }],
      [400, { ...ok, extra: true }],
      [400, 'not json'],
      [400, '[]'],
      [404, { ...ok, channel_account_id: otherAccount }],
      [404, { ...ok, channel_account_id: randomUUID() }],
      [404, { channel_account_id: id, contact_id: foreignContact, text: 'Hi' }],
      [404, { channel_account_id: id, contact_id: randomUUID(), text: 'Hi' }],
      [404, { channel_account_id: id, conversation_id: foreign.conversation, text: 'Hi' }],
      [404, { channel_account_id: id, conversation_id: randomUUID(), text: 'Hi' }],
    ];
    for (const [status, body] of bad) {
      const res = await call(t.key, 'POST', '/outbound', body);
      expect({ body, status: res.statusCode, error: typeof res.json().error }).toEqual({ body, status, error: 'string' });
    }
    // A conversation of this organization on another of its accounts.
    const second = await newAccount(t);
    const there = await call(t.key, 'POST', '/outbound', { channel_account_id: second, to: chat.newNumber(), text: 'There' });
    const mismatch = await call(t.key, 'POST', '/outbound', { channel_account_id: id, conversation_id: there.json().conversation_id, text: 'Hi' });
    expect([mismatch.statusCode, mismatch.json().error]).toEqual([400, expect.stringContaining('conversation_id')]);
    expect((await app.inject({ method: 'POST', url: `${BASE}/outbound`, payload: ok })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: `${BASE}/outbound`, headers: { 'x-api-key': 'nope' }, payload: ok })).statusCode).toBe(401);
    // Only the send on the second account was stored.
    expect(await messagesOf(t)).toBe(before + 1);
  });

  it('should answer 422 where the channel refuses: a switched-off account, an SMS opt-out, a number on an email account', async () => {
    const t = await chat.newTenant();
    const id = await newAccount(t);
    expect((await call(t.key, 'PATCH', `/channel-accounts/${id}`, { is_active: false })).statusCode).toBe(200);
    const off = await call(t.key, 'POST', '/outbound', { channel_account_id: id, to: chat.newNumber(), text: 'Hi' });
    expect([off.statusCode, off.json().code]).toEqual([422, 'channel.inactive']);

    const from = `+1415555${String(1000 + Math.floor(Math.random() * 8999))}`;
    const sms = await call(t.key, 'POST', '/channel-accounts', {
      kind: 'sms',
      name: 'Alerts',
      account_sid: `AC${randomBytes(16).toString('hex')}`,
      auth_token: randomBytes(16).toString('hex'),
      from_number: from,
    });
    expect(sms.statusCode).toBe(201);
    const smsId = sms.json().channel_account.id as string;
    const phone = '+14155550123';
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Stopper', phones: [phone] });
    await runtime.db.inTenant(t.ctx, async (tx) => {
      const [conversation] = await tx.query<{ id: string }>(
        `INSERT INTO conversations (organization_id, contact_id, channel_account_id) VALUES (app_org_id(), $1, $2) RETURNING id`,
        [contact.id, smsId],
      );
      await tx.query(
        `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin)
         VALUES (app_org_id(), $1, $2, $3, 'INBOUND', 'DELIVERED', 'STOP', 'customer')`,
        [conversation.id, contact.id, smsId],
      );
    });
    const before = await messagesOf(t);
    const stopped = await call(t.key, 'POST', '/outbound', { channel_account_id: smsId, to: phone, text: 'Flash sale' });
    expect([stopped.statusCode, stopped.json().code]).toEqual([422, 'sms.opted_out']);
    const byContact = await call(t.key, 'POST', '/outbound', { channel_account_id: smsId, contact_id: contact.id, text: 'Flash sale' });
    expect([byContact.statusCode, byContact.json().code]).toEqual([422, 'sms.opted_out']);
    const local = await call(t.key, 'POST', '/outbound', { channel_account_id: smsId, to: '4155550123', text: 'Flash sale' });
    expect(local.statusCode).toBe(400);
    expect(await messagesOf(t)).toBe(before);
    // Another customer on the SMS account is queued.
    const fine = await call(t.key, 'POST', '/outbound', { channel_account_id: smsId, to: '+1 415 555 0124', text: 'Flash sale' });
    expect([fine.statusCode, fine.json().status]).toEqual([202, 'QUEUED']);

    const email = await runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ id: string }>(`INSERT INTO channel_accounts (organization_id, kind, name) VALUES (app_org_id(), 'email', 'Help') RETURNING id`),
    );
    const mail = await call(t.key, 'POST', '/outbound', { channel_account_id: email[0].id, to: phone, text: 'Hi' });
    expect([mail.statusCode, mail.json().code]).toEqual([422, 'channel.recipient_not_phone']);
  });
});

describe('GET /functions/v1/messaging/outbound-queue and /outbound-queue/items', () => {
  it('should count the queue by origin and the sends of the last hour and 24 hours, per account of the organization only', async () => {
    const t = await chat.newTenant();
    const busy = await newAccount(t);
    const idle = await newAccount(t, null);
    const numbers = [chat.newNumber(), chat.newNumber()];
    for (const number of numbers) expect((await call(t.key, 'POST', '/outbound', { channel_account_id: busy, to: number, text: 'Code' })).statusCode).toBe(202);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [`+${chat.newNumber()}`] });
    const dispatcher = app.get(OutboundDispatcher);
    const broadcast = randomUUID();
    for (const origin of ['broadcast', 'reengagement'] as const) {
      await dispatcher.enqueue(
        t.ctx,
        { channelAccountId: busy, contactId: contact.id },
        { message: origin, mediaUrls: [], author: { origin, originId: broadcast } },
      );
    }
    const agent = await memberHeaders(app, t, 'AGENT');
    const first = await call(agent, 'GET', '/outbound-queue');
    expect(first.statusCode).toBe(200);
    type Summary = { channel_account_id: string; depth: { total: number; by_origin: Record<string, number> } };
    const byId = (body: { accounts: Summary[] }) => new Map(body.accounts.map((a) => [a.channel_account_id, a]));
    expect([...byId(first.json()).keys()].sort()).toEqual([busy, idle].sort());
    expect(byId(first.json()).get(busy)).toEqual({
      channel_account_id: busy,
      kind: 'chat_app',
      name: 'Line',
      paused: false,
      paused_reason: null,
      depth: { total: 4, by_origin: { api_queued: 2, broadcast: 1, reengagement: 1 } },
      next_send_at: expect.any(String),
      eta_last: expect.any(String),
      sent_last_hour: 0,
      sent_today: 0,
      // A new chat-app number: the first warm-up step's caps.
      caps: { per_hour: 20, per_day: 50 },
    });
    expect(byId(first.json()).get(idle)).toMatchObject({
      depth: { total: 0, by_origin: {} },
      next_send_at: null,
      eta_last: null,
      caps: { per_hour: 20, per_day: 50 },
    });

    // One look sends what may go now one after another (no gap): the three of priority 1, one per
    // recipient; the broadcast to the re-engaged contact waits for the next look.
    expect(await worker().sendOn(busy)).toBe(true);
    // One of the three went out two hours ago: it counts for the day, not the hour.
    const [sent] = await chat.rows<{ id: string }>(t, `SELECT id FROM messages WHERE channel_account_id = $1 AND status = 'SENT' LIMIT 1`, [busy]);
    await runtime.db.systemQuery(`UPDATE messages SET dispatched_at = now() - interval '2 hours' WHERE id = $1`, [sent.id]);
    const after = byId((await call(t.session, 'GET', '/outbound-queue')).json()).get(busy);
    expect(after).toMatchObject({ depth: { total: 1, by_origin: { broadcast: 1 } }, sent_last_hour: 2, sent_today: 3 });

    const other = await createTestTenant(app);
    expect((await call(other.key, 'GET', '/outbound-queue')).json()).toEqual({ accounts: [] });
    expect((await app.inject({ method: 'GET', url: `${BASE}/outbound-queue` })).statusCode).toBe(401);
  });

  it('should list queued messages in serving order with their expected time, filtered, paged and checked', async () => {
    const t = await chat.newTenant();
    // The chat app's own pacing: cold recipients 30-60 s apart (45 s in the estimate).
    const id = await newAccount(t, null);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [`+${chat.newNumber()}`] });
    const dispatcher = app.get(OutboundDispatcher);
    const [campaign, sequence] = [randomUUID(), randomUUID()];
    const queue = (origin: 'broadcast' | 'sequence' | 'bot', originId: string, message: string) =>
      dispatcher.enqueue(t.ctx, { channelAccountId: id, contactId: contact.id }, { message, mediaUrls: [], author: { origin, originId } });
    await queue('broadcast', campaign, 'b1');
    await queue('broadcast', campaign, 'b2');
    await queue('sequence', sequence, 's1');
    await queue('bot', randomUUID(), 'bot');
    const list = await call(t.key, 'GET', `/outbound-queue/items?channel_account_id=${id}`);
    expect(list.statusCode).toBe(200);
    const items = list.json().items as { content: string; position: number; expected_at: string; status: string; origin: string }[];
    expect(items.map((i) => [i.content, i.position])).toEqual([
      ['bot', 1],
      ['s1', 2],
      ['b1', 3],
      ['b2', 4],
    ]);
    expect(list.json()).toMatchObject({ total: 4, limit: 50, offset: 0 });
    const times = items.map((i) => new Date(i.expected_at).getTime());
    expect(times.slice(1).map((at, k) => at - times[k])).toEqual([45_000, 45_000, 45_000]);
    const summary = (await call(t.key, 'GET', '/outbound-queue')).json().accounts[0];
    expect(Math.abs(new Date(summary.eta_last).getTime() - times[3])).toBeLessThan(5_000);
    expect(Math.abs(new Date(summary.next_send_at).getTime() - times[0])).toBeLessThan(5_000);

    // A filter keeps each message's place in the whole queue; a page starts where it is told.
    const broadcasts = (await call(t.key, 'GET', `/outbound-queue/items?origin=broadcast`)).json();
    expect(broadcasts.items.map((i: { content: string; position: number }) => [i.content, i.position])).toEqual([
      ['b1', 3],
      ['b2', 4],
    ]);
    // The same expected time as in the whole list (each request estimates from its own clock: a few ms apart).
    expect(Math.abs(new Date(broadcasts.items[1].expected_at).getTime() - times[3])).toBeLessThan(1_000);
    const page = (await call(t.key, 'GET', `/outbound-queue/items?limit=1&offset=2`)).json();
    expect([page.items.map((i: { content: string }) => i.content), page.total]).toEqual([['b1'], 4]);
    expect((await call(t.key, 'GET', `/outbound-queue/items?status=PENDING`)).json()).toMatchObject({ items: [], total: 0 });
    const agent = await memberHeaders(app, t, 'AGENT');
    expect((await call(agent, 'GET', '/outbound-queue/items')).json().total).toBe(4);

    const other = await createTestTenant(app);
    expect((await call(other.key, 'GET', '/outbound-queue/items')).json()).toMatchObject({ items: [], total: 0 });
    expect((await call(other.key, 'GET', `/outbound-queue/items?channel_account_id=${id}`)).statusCode).toBe(404);
    for (const query of [
      'channel_account_id=nope',
      'origin=martian',
      'origin=customer',
      'status=SENT',
      'status=queued',
      'limit=0',
      'limit=201',
      'limit=ten',
      'offset=-1',
      'offset=10001',
      'page=2',
      'origin=bot&origin=rule',
    ]) {
      const res = await call(t.key, 'GET', `/outbound-queue/items?${query}`);
      expect({ query, status: res.statusCode }).toEqual({ query, status: 400 });
    }
    expect((await app.inject({ method: 'GET', url: `${BASE}/outbound-queue/items` })).statusCode).toBe(401);
  });
});
