import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { OrganizationSettings } from '@engage/identity';
import { OutboundDispatcher } from '../../outbound/dispatcher';
import { OutboundQueueWorker, OutboundSignal } from '../../outbound/queue.worker';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import type { SmsApiFake } from '../../testing/sms-peers';
import { outboxOf, SMS_PUBLIC_URL, sendSms, type SmsSendInput, smsChannel, startSmsTestApp, tenantRows } from '../../testing/sms-test-app';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let fake: SmsApiFake;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, runtime, fake, close } = await startSmsTestApp());
});
afterAll(() => close());

const create = (t: TestTenant, payload: object) => app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload });
// A valid number of the plan (its exchange starts with 2-9).
const phone = () => `+1646${2 + Math.floor(Math.random() * 8)}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;

describe('SMS channel setup', () => {
  it('should create an account with its sender number and sid, seal the auth token, never return it, and name its inbound path', async () => {
    const { t, id, sid, token, from, created } = await smsChannel(app, fake);
    expect(created).toEqual({
      channel_account: expect.objectContaining({ id, kind: 'sms', name: 'Campaigns', is_active: true, external_account_id: from, provider_account_id: sid }),
      inbound_path: `/functions/v1/sms-webhook/${id}`,
    });
    expect(JSON.stringify(created)).not.toContain(token);
    const [stored] = await tenantRows<{ access_token_sealed: string }>(runtime, t, 'SELECT access_token_sealed FROM channel_accounts WHERE id = $1', [id]);
    expect(stored.access_token_sealed).not.toContain(token);
    const list = await app.inject({ method: 'GET', url: '/functions/v1/messaging/channel-accounts', headers: t.key });
    expect(list.body).not.toContain(token);
    const rest = await app.inject({ method: 'GET', url: '/rest/v1/channel_accounts?select=*', headers: t.key });
    expect(rest.body).not.toContain(token);
    expect(rest.body).not.toContain('access_token_sealed');

    // The same number cannot be connected twice (by anyone).
    const again = await create(await createTestTenant(app), { kind: 'sms', name: 'X', account_sid: sid, auth_token: token, from_number: from });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'channel.already_connected' });
  });

  it.each([
    [{}, 'account_sid'],
    [{ account_sid: 'AC123' }, 'account_sid'],
    [{ account_sid: 42 }, 'account_sid'],
    [{ auth_token: undefined }, 'auth_token'],
    [{ auth_token: 1234567890123456 }, 'auth_token'],
    [{ auth_token: 'x'.repeat(129) }, 'auth_token'],
    [{ from_number: '4155550100' }, 'from_number'],
    [{ from_number: '+1 415 555 0100' }, 'from_number'],
    [{ from_number: `+1${'5'.repeat(20)}` }, 'from_number'],
  ])('should refuse bad setup fields %j with a 400 naming %s', async (override, field) => {
    const t = await createTestTenant(app);
    const base = { kind: 'sms', name: 'S', account_sid: `AC${'a'.repeat(32)}`, auth_token: 'b'.repeat(32), from_number: phone() };
    const payload = Object.keys(override).length === 0 ? { kind: 'sms', name: 'S' } : { ...base, ...override };
    const res = await create(t, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain(field);
  });

  it('should check the stored credentials with a real call to the provider, and switch the account off and on', async () => {
    const { t, id, sid } = await smsChannel(app, fake);
    const test = (headers: Record<string, string>, channelId = id) =>
      app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${channelId}/test`, headers });
    const before = fake.calls.length;
    expect((await test(t.key)).json()).toEqual({ ok: true });
    expect(fake.calls.slice(before).map((c) => [c.method, c.path])).toEqual([['GET', `/2010-04-01/Accounts/${sid}.json`]]);
    fake.accounts.set(sid, 'rotated-at-the-provider-0000000');
    expect((await test(t.key)).json()).toEqual({ ok: false, error: 'SMS provider error (401, code 20003): Authenticate' });
    // Another organization's account is not found.
    const other = await createTestTenant(app);
    expect((await test(other.key)).statusCode).toBe(404);

    const patch = (active: unknown) =>
      app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${id}`, headers: t.key, payload: { is_active: active } });
    const url = `/functions/v1/messaging/channel-accounts/${id}`;
    const foreign = await app.inject({ method: 'PATCH', url, headers: other.key, payload: { is_active: false } });
    expect(foreign.statusCode).toBe(404);
    expect((await patch(false)).json()).toMatchObject({ is_active: false });
    expect((await patch('no')).statusCode).toBe(400);
    expect((await patch(true)).json()).toMatchObject({ is_active: true });
  });
});

const bySequence = () => ({ origin: 'sequence' as const, originId: randomUUID() });

describe('SMS through the dispatcher, the send of broadcasts and sequences', () => {
  it('should store the message PENDING before the provider call, then SENT with the sid, in the contact’s SMS conversation', async () => {
    const { t, id, sid, token, from } = await smsChannel(app, fake);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [phone()] });
    const seen: string[] = [];
    fake.onMessage = async () => {
      const rows = await tenantRows<{ status: string }>(runtime, t, "SELECT status FROM messages WHERE direction = 'OUTBOUND'");
      seen.push(...rows.map((r) => r.status));
    };
    const before = fake.calls.length;
    const broadcastId = randomUUID();
    const input = { channelAccountId: id, contactId: contact.id, text: 'Sale ends tonight', origin: 'broadcast' as const, originId: broadcastId };
    const sent = await sendSms(app, t.ctx, input);
    fake.onMessage = undefined;
    expect(seen).toEqual(['PENDING']);
    const [call] = fake.calls.slice(before);
    expect(call.method).toBe('POST');
    expect(call.path).toBe(`/2010-04-01/Accounts/${sid}/Messages.json`);
    expect(call.authorization).toBe(`Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`);
    const statusCallback = `${SMS_PUBLIC_URL}/functions/v1/sms-webhook/${id}`;
    expect(call.form).toEqual({ To: contact.phones[0], From: from, Body: 'Sale ends tonight', StatusCallback: statusCallback });
    expect(sent.message).toMatchObject({
      status: 'SENT',
      direction: 'OUTBOUND',
      content: 'Sale ends tonight',
      origin: 'broadcast',
      origin_id: broadcastId,
    });
    // Who wrote it is the message's origin, not a metadata key.
    expect(sent.message.metadata).not.toHaveProperty('broadcast_id');
    const stored = await tenantRows<{ origin: string; origin_id: string }>(runtime, t, 'SELECT origin, origin_id FROM messages WHERE id = $1', [
      sent.message.id,
    ]);
    expect(stored).toEqual([{ origin: 'broadcast', origin_id: broadcastId }]);
    expect(sent.message.external_id).toMatch(/^SM[0-9a-f]{32}$/);
    type Row = { id: string; channel_kind: string; contact_id: string };
    const [conversation] = await tenantRows<Row>(runtime, t, 'SELECT id, channel_kind, contact_id FROM conversations');
    expect(conversation).toEqual({ id: sent.conversationId, channel_kind: 'sms', contact_id: contact.id });
    expect((await outboxOf(runtime, t, 'message.sent')).map((e) => e.payload.message.id)).toEqual([sent.message.id]);

    // A second send goes into the same conversation.
    const second = await sendSms(app, t.ctx, { ...input, text: 'Last call' });
    expect(second.conversationId).toBe(sent.conversationId);

    // The inbox's reply path does not send on SMS (§1), whoever asks, and nothing is stored or sent.
    const callsBefore = fake.calls.length;
    for (const headers of [t.session, t.key]) {
      const url = `/functions/v1/messaging/conversations/${sent.conversationId}/reply`;
      const reply = await app.inject({ method: 'POST', url, headers, payload: { message: 'hi' } });
      expect(reply.statusCode).toBe(422);
      expect(reply.json()).toMatchObject({ code: 'channel.reply_not_allowed', details: { channel_kind: 'sms' } });
    }
    expect(fake.calls.length).toBe(callsBefore);
    expect(await tenantRows(runtime, t, 'SELECT id FROM messages')).toHaveLength(2);
  });

  it('should store a refused send FAILED with the provider’s code and words and emit message.failed', async () => {
    const { t, id } = await smsChannel(app, fake);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [phone()] });
    fake.failNext(400, 21610, 'Attempt to send to unsubscribed recipient');
    const failed = await sendSms(app, t.ctx, { channelAccountId: id, contactId: contact.id, text: 'Hello', ...bySequence() });
    const error = 'SMS provider error (400, code 21610): Attempt to send to unsubscribed recipient';
    expect(failed.message).toMatchObject({ status: 'FAILED', error, external_id: null });
    expect((await outboxOf(runtime, t, 'message.failed')).map((e) => e.payload.message.error)).toEqual([error]);
  });

  it('should pace queued SMS at one a second per number, and pause the number at once on a throttling code', async () => {
    const { t, id } = await smsChannel(app, fake);
    const people = await Promise.all(Array.from({ length: 3 }, () => app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [phone()] })));
    // Outside the quiet hours whatever the hour here: the recipients' zone is the organization's (UTC) and the clock is injected.
    let now = new Date('2026-12-02T12:00:00Z');
    const worker = new OutboundQueueWorker(runtime.db, app.get(OutboundDispatcher), app.get(OrganizationSettings), new OutboundSignal(), () => now);
    const ids: string[] = [];
    for (const person of people) {
      const queued = await app
        .get(OutboundDispatcher)
        .enqueue(t.ctx, { channelAccountId: id, contactId: person.id }, { message: 'Sale ends tonight', mediaUrls: [], ...{ author: bySequence() } });
      ids.push(...queued.messageIds);
    }
    const statuses = async () =>
      (await tenantRows<{ id: string; status: string }>(runtime, t, 'SELECT id, status FROM messages WHERE id = ANY($1::uuid[])', [ids]))
        .map((r) => r.status)
        .sort();
    expect(await worker.sendOn(id)).toBe(true);
    // The same second: the number's one-a-second limit (and the 1-2 s gap) holds the next.
    expect(await worker.sendOn(id)).toBe(false);
    expect(await statuses()).toEqual(['QUEUED', 'QUEUED', 'SENT']);
    const [held] = await runtime.db.systemQuery<{ next_send_at: Date }>('SELECT next_send_at FROM channel_accounts WHERE id = $1', [id]);
    const wait = new Date(held.next_send_at).getTime() - now.getTime();
    expect(wait).toBeGreaterThanOrEqual(1000);
    expect(wait).toBeLessThanOrEqual(2000);
    now = new Date(held.next_send_at);
    fake.failNext(400, 14107, 'SMS send rate limit exceeded');
    expect(await worker.sendOn(id)).toBe(true);
    const [paused] = await runtime.db.systemQuery<{ paused_reason: string | null }>('SELECT paused_reason FROM channel_accounts WHERE id = $1', [id]);
    expect(paused.paused_reason).toMatch(/^rate_limited: The provider throttled the sender \(400: SMS provider error \(400, code 14107\)/);
    now = new Date(now.getTime() + 60_000);
    expect(await worker.sendOn(id)).toBe(false);
    expect(await statuses()).toEqual(['FAILED', 'QUEUED', 'SENT']);
  });

  it('should refuse bad input and other organizations’ ids before anything is stored or sent', async () => {
    const { t, id } = await smsChannel(app, fake);
    const other = await smsChannel(app, fake);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [phone()] });
    const noPhone = await app.get(ContactService).create(t.ctx, { first_name: 'Nobody', emails: ['n@example.com'] });
    const source = bySequence();
    const refusal = (input: Omit<SmsSendInput, 'origin' | 'originId'> & Partial<typeof source>) =>
      sendSms(app, t.ctx, { ...source, ...input }).then(
        () => null,
        (e: { code: string }) => e.code,
      );
    const before = fake.calls.length;
    expect(await refusal({ channelAccountId: id, contactId: contact.id, text: '' })).toBe('validation_failed');
    expect(await refusal({ channelAccountId: id, contactId: contact.id, text: 'x'.repeat(1601) })).toBe('validation_failed');
    expect(await refusal({ channelAccountId: id, contactId: contact.id, text: 42 as unknown as string })).toBe('validation_failed');
    expect(await refusal({ channelAccountId: other.id, contactId: contact.id, text: 'hi' })).toBe('channel_account.not_found');
    expect(await refusal({ channelAccountId: 'nope', contactId: contact.id, text: 'hi' })).toBe('channel_account.not_found');
    const foreign = await app.get(ContactService).create(other.t.ctx, { first_name: 'B', phones: [phone()] });
    expect(await refusal({ channelAccountId: id, contactId: foreign.id, text: 'hi' })).toBe('contact.not_found');
    expect(await refusal({ channelAccountId: id, contactId: noPhone.id, text: 'hi' })).toBe('sms.no_phone');
    // Who wrote it: a known origin other than the customer's, a UUID source where it has one.
    for (const author of [
      { origin: 'customer', originId: null },
      { origin: 'robot', originId: null },
      { origin: 'broadcast', originId: 'b-7' },
      { origin: 'agent', originId: randomUUID() },
    ]) {
      expect(await refusal({ channelAccountId: id, contactId: contact.id, text: 'hi', ...(author as typeof source) })).toBe('validation_failed');
    }
    await app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${id}`, headers: t.key, payload: { is_active: false } });
    expect(await refusal({ channelAccountId: id, contactId: contact.id, text: 'hi' })).toBe('channel.inactive');
    expect(fake.calls.length).toBe(before);
    expect(await tenantRows(runtime, t, 'SELECT id FROM messages')).toEqual([]);
  });
});
