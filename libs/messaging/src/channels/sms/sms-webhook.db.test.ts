import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { InboundProcessor } from '../../inbound/inbound-processor';
import { newAccountSid, postSigned, type SmsApiFake, twilioSignature } from '../../testing/sms-peers';
import { outboxOf, SMS_PUBLIC_URL, sendSms, smsChannel, startSmsTestApp, tenantRows } from '../../testing/sms-test-app';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let fake: SmsApiFake;
let appBase: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, runtime, fake, appBase, close } = await startSmsTestApp());
});
afterAll(() => close());

const TWIML = '<Response></Response>';
const drain = async () => {
  while ((await app.get(InboundProcessor).processDue()) > 0);
};
const path = (id: string) => `/functions/v1/sms-webhook/${id}`;
// An inbound SMS as the provider posts it, signed with `token` over the public address.
const inbound = (ch: { id: string; sid: string; from: string }, token: string | null, params: Record<string, string>, tamper?: Record<string, string>) =>
  postSigned(
    `${appBase}${path(ch.id)}`,
    `${SMS_PUBLIC_URL}${path(ch.id)}`,
    {
      MessageSid: `SM${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
      AccountSid: ch.sid,
      To: ch.from,
      NumMedia: '0',
      SmsStatus: 'received',
      ...params,
    },
    token,
    tamper,
  );
// A valid number of the plan (its exchange starts with 2-9).
const phone = () => `+1646${2 + Math.floor(Math.random() * 8)}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;

// A broadcast's SMS to a new contact.
async function sentMessage(t: TestTenant, id: string, to = phone()) {
  const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [to] });
  const broadcastId = randomUUID();
  const input = { channelAccountId: id, contactId: contact.id, text: 'Sale!', origin: 'broadcast' as const, originId: broadcastId };
  const { message } = await sendSms(app, t.ctx, input);
  expect(message.status).toBe('SENT');
  return { contact, message, broadcastId };
}

describe('POST /functions/v1/sms-webhook/<channel_account_id>', () => {
  it('should move statuses from signed status callbacks, emit message.delivered and message.failed with the ErrorCode, and settle replays', async () => {
    const { t, id } = await smsChannel(app, fake);
    const first = await sentMessage(t, id);
    const second = await sentMessage(t, id);
    const queued = await fake.status(first.message.external_id!, { MessageStatus: 'queued' });
    expect(queued).toEqual({ status: 200, type: 'text/xml; charset=utf-8', text: TWIML });
    expect(await fake.status(first.message.external_id!, { MessageStatus: 'delivered' })).toMatchObject({ status: 200, text: TWIML });
    expect((await fake.status(second.message.external_id!, { MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(200);
    await drain();
    type Row = { id: string; status: string; error: string | null };
    const rows = await tenantRows<Row>(runtime, t, 'SELECT id, status, error FROM messages ORDER BY created_at');
    expect(rows).toEqual([
      { id: first.message.id, status: 'DELIVERED', error: null },
      { id: second.message.id, status: 'FAILED', error: 'undelivered (ErrorCode 30003)' },
    ]);
    expect((await outboxOf(runtime, t, 'message.delivered')).map((e) => [e.payload.message.id, e.payload.from_status])).toEqual([[first.message.id, 'SENT']]);
    expect((await outboxOf(runtime, t, 'message.failed')).map((e) => e.payload.message.error)).toEqual(['undelivered (ErrorCode 30003)']);

    // Replayed (the provider retries): acknowledged, nothing moves twice; a late failure does not undo delivery.
    expect((await fake.status(first.message.external_id!, { MessageStatus: 'delivered' })).status).toBe(200);
    expect((await fake.status(first.message.external_id!, { MessageStatus: 'failed', ErrorCode: '30008' })).status).toBe(200);
    await drain();
    expect(await outboxOf(runtime, t, 'message.delivered')).toHaveLength(1);
    expect(await outboxOf(runtime, t, 'message.failed')).toHaveLength(1);
    expect((await tenantRows<{ status: string }>(runtime, t, 'SELECT status FROM messages WHERE id = $1', [first.message.id]))[0].status).toBe('DELIVERED');
  });

  it('should refuse unsigned, wrongly signed and tampered callbacks with 401, and unknown or inactive accounts with the same 404', async () => {
    const { t, id } = await smsChannel(app, fake);
    const { message } = await sentMessage(t, id);
    const sid = message.external_id!;
    const unsigned = await fake.status(sid, { MessageStatus: 'delivered' }, 'unsigned');
    expect(unsigned.status).toBe(401);
    expect(JSON.parse(unsigned.text)).toMatchObject({ code: 'sms.invalid_signature' });
    expect((await fake.status(sid, { MessageStatus: 'delivered' }, 'wrong_token')).status).toBe(401);
    const ch = await smsChannel(app, fake, t);
    // A signed parameter changed on the way, a parameter added, the address signed for another account.
    expect((await inbound(ch, ch.token, { From: phone(), Body: 'hi' }, { Body: 'changed' })).status).toBe(401);
    expect((await inbound(ch, ch.token, { From: phone(), Body: 'hi' }, { Extra: '1' })).status).toBe(401);
    const other = await smsChannel(app, fake);
    expect((await inbound(ch, other.token, { From: phone(), Body: 'hi' })).status).toBe(401);
    await drain();
    expect((await tenantRows<{ status: string }>(runtime, t, 'SELECT status FROM messages WHERE id = $1', [message.id]))[0].status).toBe('SENT');
    expect(await tenantRows(runtime, t, "SELECT id FROM messages WHERE direction = 'INBOUND'")).toEqual([]);

    const unknown = await inbound({ ...ch, id: '00000000-0000-4000-8000-000000000000' }, ch.token, { From: phone(), Body: 'hi' });
    await app.inject({ method: 'PATCH', url: `/functions/v1/messaging/channel-accounts/${ch.id}`, headers: t.key, payload: { is_active: false } });
    const inactive = await inbound(ch, ch.token, { From: phone(), Body: 'hi' });
    const notUuid = await inbound({ ...ch, id: 'not-a-channel' }, ch.token, { From: phone(), Body: 'hi' });
    for (const res of [unknown, inactive, notUuid]) {
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text).code).toBe('channel_account.not_found');
    }
    // A chat-app account is not an SMS account.
    const payload = { kind: 'chat_app', name: 'L' };
    const chatApp = (await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload })).json();
    expect((await inbound({ ...ch, id: chatApp.channel_account.id }, ch.token, { From: phone(), Body: 'hi' })).status).toBe(404);
  });

  it('should store a signed inbound SMS in the contact’s conversation (found by phone), once per MessageSid, before the 200', async () => {
    const { t, id, sid, from } = await smsChannel(app, fake);
    const customer = phone();
    // The contact was written in another form; the CRM's phone lookup finds it.
    const { contact, message, broadcastId } = await sentMessage(
      t,
      id,
      `${customer.slice(0, 2)} (${customer.slice(2, 5)}) ${customer.slice(5, 8)}-${customer.slice(8)}`,
    );
    const ch = { id, sid, from };
    const res = await inbound(ch, fake.accounts.get(sid)!, { MessageSid: `SM${'1'.repeat(32)}`, From: customer, Body: 'Is it still on?' });
    expect(res).toEqual({ status: 200, type: 'text/xml; charset=utf-8', text: TWIML });
    // Durable before the answer: the raw event is stored.
    const [event] = await runtime.db.asSystem((tx) =>
      tx.query<{ payload: Record<string, unknown> }>('SELECT payload FROM inbound_events WHERE channel_account_id = $1', [id]),
    );
    expect(event.payload).toMatchObject({ type: 'message', id: `SM${'1'.repeat(32)}`, from: customer, text: 'Is it still on?' });
    expect((await inbound(ch, fake.accounts.get(sid)!, { MessageSid: `SM${'1'.repeat(32)}`, From: customer, Body: 'Is it still on?' })).status).toBe(200);
    await drain();
    const rows = await tenantRows<{ direction: string; content: string; contact_id: string; conversation_id: string; external_id: string }>(
      runtime,
      t,
      "SELECT direction, content, contact_id, conversation_id, external_id FROM messages WHERE direction = 'INBOUND'",
    );
    expect(rows).toEqual([
      {
        direction: 'INBOUND',
        content: 'Is it still on?',
        contact_id: contact.id,
        conversation_id: message.conversation_id,
        external_id: `SM${'1'.repeat(32)}`,
      },
    ]);
    expect((await outboxOf(runtime, t, 'message.received')).map((e) => e.payload.message.content)).toEqual(['Is it still on?']);
    // A reply to a broadcast's message (its origin says so) names it, for campaigns to decide.
    expect((await outboxOf(runtime, t, 'message.received')).map((e) => e.payload)).toEqual([
      expect.objectContaining({
        channel_kind: 'sms',
        replied_to: { message_id: message.id, origin: 'broadcast', origin_id: broadcastId, campaign_id: null },
      }),
    ]);

    // An unknown number becomes a new contact with its own SMS conversation.
    const stranger = phone();
    expect((await inbound(ch, fake.accounts.get(sid)!, { From: stranger, Body: 'Who is this?' })).status).toBe(200);
    await drain();
    const [created] = await tenantRows<{ phones: string[]; channel_kind: string }>(
      runtime,
      t,
      'SELECT ct.phones, c.channel_kind FROM contacts ct JOIN conversations c ON c.contact_id = ct.id WHERE $1 = ANY (ct.phones)',
      [stranger],
    );
    expect(created).toEqual({ phones: [stranger], channel_kind: 'sms' });
  });

  it('should keep STOP and START as messages, refuse automated sends after STOP until START', async () => {
    const { t, id, sid, from } = await smsChannel(app, fake);
    const customer = phone();
    const { contact } = await sentMessage(t, id, customer);
    const ch = { id, sid, from };
    const sequence = { origin: 'sequence' as const, originId: randomUUID() };
    const send = () => sendSms(app, t.ctx, { channelAccountId: id, contactId: contact.id, text: 'More deals', ...sequence });
    await inbound(ch, fake.accounts.get(sid)!, { From: customer, Body: ' stop ' });
    await drain();
    await expect(send()).rejects.toMatchObject({ code: 'sms.opted_out' });
    await inbound(ch, fake.accounts.get(sid)!, { From: customer, Body: 'START' });
    await drain();
    expect((await send()).message.status).toBe('SENT');
    const inboundRows = await tenantRows<{ content: string }>(runtime, t, "SELECT content FROM messages WHERE direction = 'INBOUND' ORDER BY created_at");
    expect(inboundRows.map((r) => r.content)).toEqual([' stop ', 'START']);
  });

  it('should answer bad signed input with a 400 and other media types with 415, never a 500', async () => {
    const { id, sid, token, from } = await smsChannel(app, fake);
    const ch = { id, sid, from };
    const cases: [Record<string, string>, string][] = [
      [{ MessageSid: '', From: phone(), Body: 'x' }, 'MessageSid'],
      [{ From: 'not-a-number', Body: 'x' }, 'From'],
      [{ From: phone(), Body: 'x'.repeat(6401) }, 'Body'],
      [{ From: phone(), Body: 'nul \u0000 char' }, 'NUL'],
      [{ From: phone(), Body: 'x', NumMedia: 'lots' }, 'NumMedia'],
      [{ From: phone(), Body: 'x', AccountSid: newAccountSid() }, 'AccountSid'],
      [{ From: phone(), Body: 'x', SmsStatus: '', MessageStatus: 'exploded' }, 'MessageStatus'],
      [{ From: phone(), Body: 'x', MessageStatus: 'failed', ErrorCode: 'abc' }, 'ErrorCode'],
    ];
    for (const [params, field] of cases) {
      const res = await inbound(ch, token, params);
      expect([res.status, res.text]).toEqual([400, expect.stringContaining(field)]);
    }
    const json = await fetch(`${appBase}${path(id)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"From":"+14155550100"}' });
    expect(json.status).toBe(415);
    const big = await postSigned(`${appBase}${path(id)}`, `${SMS_PUBLIC_URL}${path(id)}`, { From: phone(), Body: 'x'.repeat(70_000) }, token);
    expect(big.status).toBe(413);
    // The media type with its charset parameter is the same form.
    const form = { MessageSid: `SM${'2'.repeat(32)}`, From: phone(), Body: 'charset' };
    const signature = twilioSignature(`${SMS_PUBLIC_URL}${path(id)}`, form, token);
    const charset = await fetch(`${appBase}${path(id)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'x-twilio-signature': signature },
      body: new URLSearchParams(form).toString(),
    });
    expect([charset.status, await charset.text()]).toEqual([200, TWIML]);
    // Form bodies stay refused on every other route.
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
    const elsewhere = await fetch(`${appBase}/functions/v1/chat-lite-webhook/${id}`, { method: 'POST', headers: formHeaders, body: 'a=1' });
    expect(elsewhere.status).toBe(415);
  });
});
