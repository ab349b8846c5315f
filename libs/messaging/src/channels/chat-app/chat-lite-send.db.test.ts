import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService, TokenService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../../testing/chat-lite-test-app';
import type { RecordingProvider } from '../../testing/recording-provider';

let chat: ChatLiteTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let provider: RecordingProvider;
const newNumber = () => chat.newNumber();

beforeAll(async () => {
  // One organization's 50 parallel sends (the race test) all wait for a slot rather than get 429.
  chat = await startChatLiteTestApp({
    SEND_GAP_MIN_MS: '30',
    SEND_GAP_MAX_MS: '60',
    PROVIDER_TIMEOUT_MS: '400',
    ORG_MAX_CONCURRENT_REQUESTS: '50',
    ORG_MAX_QUEUED_REQUESTS: '50',
    ORG_QUEUE_WAIT_MS: '20000',
  });
  ({ app, runtime, provider } = chat);
});
afterAll(() => chat.close());

const newTenant = async (withKey = true): Promise<TestTenant & { providerKey: string }> => {
  const tenant = await createTestTenant(app);
  const providerKey = `provider-key-${tenant.ctx.organizationId.slice(0, 8)}`;
  if (withKey) await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', providerKey);
  return { ...tenant, providerKey };
};
const send = (headers: Record<string, string>, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: '/functions/v1/chat-lite-send',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
const rows = <T = Record<string, unknown>>(ctx: RequestContext, sql: string, params: unknown[] = []) =>
  runtime.db.inTenant(ctx, (tx) => tx.query<T>(sql, params));
const events = (ctx: RequestContext) =>
  runtime.db.asSystem((tx) =>
    tx.query<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox WHERE organization_id = $1 AND source = 'messaging' ORDER BY seq`,
      [ctx.organizationId],
    ),
  );

describe('POST /functions/v1/chat-lite-send', () => {
  it('should send through the provider, store contact, conversation and message, and answer exactly as §4.1', async () => {
    const t = await newTenant();
    const to = newNumber();
    const res = await send(t.key, {
      to: `${to}@s.whatsapp.net`,
      message: 'Hello there',
      organizationId: t.ctx.organizationId,
      contactName: 'Sara',
      from: 'Agent Amal',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['contactId', 'conversationId', 'debug', 'result', 'success']);
    expect(body).toMatchObject({
      success: true,
      result: { status: true, message: 'Message sent' },
      debug: { hasChannelAccount: true, hasConversationId: true, hasContactId: true },
    });

    const [call] = provider.callsTo(to);
    expect(call.path).toBe(`/${t.ctx.organizationId}/send`);
    expect(call.headers.appapikey).toBe(t.providerKey);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.body).toEqual({
      UOWCHAT: { random_string: 0, receivers: [{ mobileNum: to }], message: 'Hello there', imageUrl: '', videoUrl: '', documentUrl: '' },
    });

    const [contact] = await rows<{ id: string; first_name: string; phones: string[] }>(t.ctx, 'SELECT id, first_name, phones FROM contacts');
    expect(contact).toEqual({ id: body.contactId, first_name: 'Sara', phones: [`+${to}`] });
    const [conversation] = await rows(t.ctx, 'SELECT * FROM conversations');
    expect(conversation).toMatchObject({ id: body.conversationId, contact_id: contact.id, status: 'OPEN', unread_count: 0 });
    expect(conversation.last_message_at).toBeInstanceOf(Date);
    const [message] = await rows(t.ctx, 'SELECT * FROM messages');
    expect(message).toMatchObject({
      direction: 'OUTBOUND',
      status: 'SENT',
      content: 'Hello there',
      conversation_id: body.conversationId,
      contact_id: contact.id,
      metadata: { sender_name: 'Agent Amal', random_string: 0 },
      // Written through the API.
      origin: 'api',
      origin_id: null,
    });
    expect(message.external_id).toMatch(/^ext-/);
    const [channel] = await rows(t.ctx, 'SELECT kind, is_active, auto_created FROM channel_accounts');
    expect(channel).toEqual({ kind: 'chat_app', is_active: true, auto_created: true });

    const emitted = await events(t.ctx);
    expect(emitted.map((e) => e.type)).toEqual(['conversation.created', 'message.sent']);
    expect(emitted[1].payload).toMatchObject({
      actor_id: null,
      message: {
        id: message.id,
        conversation_id: body.conversationId,
        contact_id: contact.id,
        direction: 'OUTBOUND',
        status: 'SENT',
        content: 'Hello there',
        external_id: message.external_id,
        origin: 'api',
        origin_id: null,
      },
    });
    expect(emitted[0].payload).toMatchObject({ actor_id: null, conversation: { id: body.conversationId, status: 'OPEN' } });
  });

  it('should reuse the contact (any written form of the number) and the OPEN conversation, naming new contacts "Unknown Contact"', async () => {
    const t = await newTenant();
    const to = newNumber();
    const first = (await send(t.session, { to, message: 'one', organizationId: t.ctx.organizationId })).json();
    const plus = `+${to.slice(0, 2)} ${to.slice(2, 5)} ${to.slice(5, 8)} ${to.slice(8)}`;
    const second = (await send(t.session, { to: plus, message: 'two', organizationId: t.ctx.organizationId })).json();
    expect(second.contactId).toBe(first.contactId);
    expect(second.conversationId).toBe(first.conversationId);
    expect(await rows(t.ctx, 'SELECT first_name FROM contacts')).toEqual([{ first_name: 'Unknown Contact' }]);
    // The session's user is the actor.
    const sent = (await events(t.ctx)).filter((e) => e.type === 'message.sent');
    expect(sent.map((e) => e.payload.actor_id)).toEqual([t.ctx.userId, t.ctx.userId]);
  });

  it('should make one provider call per attachment: caption with 0 first, then unique non-zero nonces, with a gap between calls', async () => {
    const t = await newTenant();
    const to = newNumber();
    const media = ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.jpg', 'https://cdn.example.com/c.png', 'https://cdn.example.com/d.png'];
    const res = await send(t.key, { to, message: 'Our catalogue', organizationId: t.ctx.organizationId, media_urls: media });
    expect(res.statusCode).toBe(200);
    const calls = provider.callsTo(to);
    expect(calls.map((c) => [c.body.UOWCHAT.message, c.body.UOWCHAT.imageUrl])).toEqual([
      ['Our catalogue', media[0]],
      ['', media[1]],
      ['', media[2]],
      ['', media[3]],
    ]);
    const nonces = calls.map((c) => c.body.UOWCHAT.random_string);
    expect(nonces[0]).toBe(0);
    expect(nonces.slice(1).every((n) => Number.isInteger(n) && n !== 0)).toBe(true);
    expect(new Set(nonces).size).toBe(4);
    // Each pause is at least SEND_GAP_MIN_MS (a lower bound only; the upper bound is not timed here).
    for (let i = 1; i < calls.length; i++) expect(calls[i].at - calls[i - 1].at).toBeGreaterThanOrEqual(25);
    const stored = await rows<{ content: string; media: unknown[]; status: string }>(
      t.ctx,
      "SELECT content, media, status FROM messages ORDER BY created_at, (metadata->>'random_string')::bigint",
    );
    expect(stored).toHaveLength(4);
    expect(stored.every((m) => m.status === 'SENT' && m.media.length === 1)).toBe(true);
  });

  it("should answer 500 with the provider's message and store the attempt as FAILED with message.failed", async () => {
    const t = await newTenant();
    const to = newNumber();
    provider.script = (call) =>
      call.body.UOWCHAT.receivers[0].mobileNum === to ? { status: 401, body: { status: false, message: 'Invalid appapikey' } } : undefined;
    const res = await send(t.key, { to, message: 'will fail', organizationId: t.ctx.organizationId });
    provider.script = () => undefined;
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toBe('Provider error (401): Invalid appapikey');
    const [message] = await rows(t.ctx, 'SELECT status, content, error, external_id FROM messages');
    expect(message).toEqual({ status: 'FAILED', content: 'will fail', error: 'Provider error (401): Invalid appapikey', external_id: null });
    expect((await events(t.ctx)).map((e) => e.type)).toEqual(['conversation.created', 'message.failed']);
  });

  it('should bound the provider call by PROVIDER_TIMEOUT_MS and report it clearly; a later attachment failing keeps the earlier SENT', async () => {
    const t = await newTenant();
    const slow = newNumber();
    provider.script = (call) => (call.body.UOWCHAT.receivers[0].mobileNum === slow ? { status: 200, body: { status: true }, delayMs: 1500 } : undefined);
    const res = await send(t.key, { to: slow, message: 'slow', organizationId: t.ctx.organizationId });
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toBe('Provider did not answer within 400 ms');

    const partial = newNumber();
    provider.script = (call) =>
      call.body.UOWCHAT.receivers[0].mobileNum === partial && call.body.UOWCHAT.imageUrl.endsWith('b.png') ? { status: 503, body: 'upstream down' } : undefined;
    const media = ['https://x.example.com/a.png', 'https://x.example.com/b.png', 'https://x.example.com/c.png'];
    const res2 = await send(t.key, { to: partial, message: 'three', organizationId: t.ctx.organizationId, media_urls: media });
    provider.script = () => undefined;
    expect(res2.statusCode).toBe(500);
    expect(res2.json().error).toBe('Provider error (503): upstream down');
    expect(provider.callsTo(partial)).toHaveLength(2);
    const stored = await rows<{ status: string; error: string | null }>(
      t.ctx,
      `SELECT m.status, m.error FROM messages m JOIN contacts c ON c.id = m.contact_id WHERE $1 = ANY (c.phones) ORDER BY m.created_at, m.id`,
      [`+${partial}`],
    );
    expect(stored.map((m) => m.status).sort()).toEqual(['FAILED', 'FAILED', 'SENT']);
  });

  it('should keep a message whose provider id repeats one already stored, without the id', async () => {
    const t = await newTenant();
    const to = newNumber();
    provider.script = (call) =>
      call.body.UOWCHAT.receivers[0].mobileNum === to ? { status: 200, body: { status: true, message: 'ok', id: 'always-the-same' } } : undefined;
    const first = await send(t.key, { to, message: 'one', organizationId: t.ctx.organizationId });
    const second = await send(t.key, { to, message: 'two', organizationId: t.ctx.organizationId });
    provider.script = () => undefined;
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    const stored = await rows<{ content: string; external_id: string | null; metadata: Record<string, unknown> }>(
      t.ctx,
      'SELECT content, external_id, metadata FROM messages ORDER BY created_at, content',
    );
    expect(stored.map((m) => [m.content, m.external_id, m.metadata.duplicate_external_id ?? null])).toEqual([
      ['one', 'always-the-same', null],
      ['two', null, 'always-the-same'],
    ]);
  });

  it('should refuse bad input with 400 naming the problem, before calling the provider', async () => {
    const t = await newTenant();
    const org = t.ctx.organizationId;
    const before = provider.calls.length;
    const cases: [unknown, string][] = [
      ['{"to": "2010', 'not valid JSON'],
      [{ message: 'hi', organizationId: org }, 'Missing required field: to'],
      [{ to: '201001234567', organizationId: org }, 'Missing required field: message'],
      [{ to: '201001234567', message: 'hi' }, 'Missing required field: organizationId'],
      [{ to: '201001234567', message: 'x'.repeat(4097), organizationId: org }, 'message must be at most 4096 characters'],
      [{ to: 201001234567, message: 'hi', organizationId: org }, 'to must be a string'],
      [{ to: '201001234567', message: ['hi'], organizationId: org }, 'message must be a string'],
      [{ to: '201001234567', message: 'hi', organizationId: 'acme' }, 'organizationId must be a UUID'],
      [{ to: 'hello', message: 'hi', organizationId: org }, 'not a phone number'],
      [{ to: '201001234567', message: 'hi', organizationId: org, media_urls: 'https://x/a.png' }, 'media_urls'],
      [{ to: '201001234567', message: 'hi', organizationId: org, conversationId: 'nope' }, 'conversationId must be a UUID'],
      [[1, 2], 'JSON object'],
    ];
    for (const [payload, error] of cases) {
      const res = await send(t.key, payload);
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status: 400, error: expect.stringContaining(error) });
    }
    expect(provider.calls.length).toBe(before);
    // 4096 characters pass even when they take 8192 UTF-16 units (and 16384 bytes).
    expect((await send(t.key, { to: newNumber(), message: '😀'.repeat(4096), organizationId: org })).statusCode).toBe(200);
  });

  it('should answer 404 when the organization has no provider key, and never call the provider', async () => {
    const t = await newTenant(false);
    const before = provider.calls.length;
    const res = await send(t.key, { to: newNumber(), message: 'hi', organizationId: t.ctx.organizationId });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatch(/provider API key/);
    expect(provider.calls.length).toBe(before);
  });

  it("should require credentials of the organization: 401 without or with the anon key, 404 with another organization's", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const payload = { to: newNumber(), message: 'hi', organizationId: a.ctx.organizationId };
    expect((await send({}, payload)).statusCode).toBe(401);
    expect((await send({ 'x-api-key': 'not-a-real-key-123' }, payload)).statusCode).toBe(401);
    expect((await send({ authorization: 'Bearer not.a.jwt' }, payload)).statusCode).toBe(401);
    const anon = await app.get(TokenService).issueAnonKey();
    const anonRes = await send({ authorization: `Bearer ${anon}` }, payload);
    expect(anonRes.statusCode).toBe(401);
    expect(anonRes.json().code).toBe('anon_send_disabled');
    // Another organization's id and one that does not exist get the same answer (§7: 404).
    const foreign = await send(b.key, payload);
    const missingId = '00000000-0000-4000-8000-000000000000';
    const missing = await send(b.key, { ...payload, organizationId: missingId });
    expect(foreign.statusCode).toBe(404);
    expect((await send(b.session, payload)).statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: `organization ${a.ctx.organizationId} not found`, code: 'organization.not_found' });
    expect(missing.json()).toEqual({ error: `organization ${missingId} not found`, code: 'organization.not_found' });
    expect(await rows(a.ctx, 'SELECT id FROM messages')).toEqual([]);
    expect((await send(a.session, payload)).statusCode).toBe(200);
  });

  it('should create exactly one contact, one channel account and one OPEN conversation for 50 parallel sends to a new number', async () => {
    const t = await newTenant();
    const to = newNumber();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(t.key, { to: i % 2 ? `+${to}` : `${to}@s.whatsapp.net`, message: `m${i}`, organizationId: t.ctx.organizationId }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    expect(new Set(results.map((r) => r.json().conversationId)).size).toBe(1);
    expect(new Set(results.map((r) => r.json().contactId)).size).toBe(1);
    expect(await rows(t.ctx, 'SELECT count(*)::int AS n FROM contacts')).toEqual([{ n: 1 }]);
    expect(await rows(t.ctx, 'SELECT count(*)::int AS n FROM channel_accounts')).toEqual([{ n: 1 }]);
    expect(await rows(t.ctx, "SELECT count(*)::int AS n FROM conversations WHERE status = 'OPEN'")).toEqual([{ n: 1 }]);
    expect(await rows(t.ctx, 'SELECT count(*)::int AS n FROM messages')).toEqual([{ n: 50 }]);
    const types = (await events(t.ctx)).map((e) => e.type);
    expect(types.filter((x) => x === 'conversation.created')).toHaveLength(1);
    expect(types.filter((x) => x === 'message.sent')).toHaveLength(50);
  });

  it('should store a cross-channel send in the conversation of the channel it was sent from, resolving the recipient from conversationId', async () => {
    const t = await newTenant();
    const to = newNumber();
    // The customer wrote on Instagram; the agent answers on the chat app.
    const first = (await send(t.key, { to, message: 'creates contact and chat-app channel', organizationId: t.ctx.organizationId })).json();
    const [chatApp] = await rows<{ id: string }>(t.ctx, 'SELECT channel_account_id AS id FROM conversations WHERE id = $1', [first.conversationId]);
    const [instagram] = await rows<{ id: string }>(
      t.ctx,
      "INSERT INTO channel_accounts (organization_id, kind, name) VALUES (app_org_id(), 'instagram', 'IG') RETURNING id",
    );
    const [igConversation] = await rows<{ id: string }>(
      t.ctx,
      'INSERT INTO conversations (organization_id, contact_id, channel_account_id) VALUES (app_org_id(), $1, $2) RETURNING id',
      [first.contactId, instagram.id],
    );
    await rows(t.ctx, 'UPDATE conversations SET status = $2 WHERE id = $1', [first.conversationId, 'RESOLVED']);
    const cross = { originalChannelId: instagram.id, originalChannelType: 'instagram', responseChannelId: chatApp.id };
    const res = await send(t.key, {
      message: 'answered on the chat app',
      organizationId: t.ctx.organizationId,
      conversationId: igConversation.id,
      crossChannelResponse: cross,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.conversationId).not.toBe(igConversation.id);
    expect(body.conversationId).not.toBe(first.conversationId);
    expect(body.contactId).toBe(first.contactId);
    expect(provider.callsTo(to)).toHaveLength(2);
    const [landed] = await rows(t.ctx, 'SELECT channel_account_id, contact_id, status FROM conversations WHERE id = $1', [body.conversationId]);
    expect(landed).toEqual({ channel_account_id: chatApp.id, contact_id: first.contactId, status: 'OPEN' });
    const [message] = await rows<{ metadata: Record<string, unknown> }>(t.ctx, 'SELECT metadata FROM messages WHERE conversation_id = $1', [
      body.conversationId,
    ]);
    expect(message.metadata.cross_channel).toEqual({ ...cross, requested_conversation_id: igConversation.id });
    expect(await rows(t.ctx, 'SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1', [igConversation.id])).toEqual([{ n: 0 }]);
    // The same again lands in the same (now existing) conversation.
    expect(
      (await send(t.key, { message: 'again', organizationId: t.ctx.organizationId, conversationId: igConversation.id, crossChannelResponse: cross })).json()
        .conversationId,
    ).toBe(body.conversationId);
    // Answering "from" a channel kind without a sending adapter is refused before sending.
    const before = provider.calls.length;
    const wrong = await send(t.key, {
      message: 'x',
      organizationId: t.ctx.organizationId,
      conversationId: igConversation.id,
      crossChannelResponse: { ...cross, responseChannelId: instagram.id },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('channel.cannot_send');
    expect(provider.calls.length).toBe(before);
    // Without a cross-channel answer, an Instagram conversation is not sent on through the chat-app
    // provider (that would bypass its channel and window rule): refused, nothing stored or sent.
    const direct = await send(t.key, { to: newNumber(), message: 'into instagram', organizationId: t.ctx.organizationId, conversationId: igConversation.id });
    expect(direct.statusCode).toBe(400);
    expect(direct.json()).toMatchObject({
      code: 'channel.cannot_send',
      error: expect.stringContaining(`/functions/v1/messaging/conversations/${igConversation.id}/reply`),
    });
    expect(provider.calls.length).toBe(before);
    expect(await rows(t.ctx, 'SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1', [igConversation.id])).toEqual([{ n: 0 }]);
  });

  it("should answer 404 for another organization's conversation or channel, without sending", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const bConversation = (await send(b.key, { to: newNumber(), message: 'b', organizationId: b.ctx.organizationId })).json().conversationId;
    const [bChannel] = await rows<{ id: string }>(b.ctx, 'SELECT id FROM channel_accounts');
    const before = provider.calls.length;
    const to = newNumber();
    expect((await send(a.key, { to, message: 'x', organizationId: a.ctx.organizationId, conversationId: bConversation })).statusCode).toBe(404);
    const cross = { originalChannelId: bChannel.id, originalChannelType: 'chat_app', responseChannelId: bChannel.id };
    expect((await send(a.key, { to, message: 'x', organizationId: a.ctx.organizationId, crossChannelResponse: cross })).statusCode).toBe(404);
    expect(provider.calls.length).toBe(before);
    expect(await rows(a.ctx, 'SELECT id FROM messages')).toEqual([]);
  });
});
