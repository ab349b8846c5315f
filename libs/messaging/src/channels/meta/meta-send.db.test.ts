import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { SecretBox } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { MetaAdapter } from './meta.adapter';
import { ChannelAdapters } from '../../outbound/channel-adapter.port';
import { OutboundDispatcher } from '../../outbound/dispatcher';
import { OutboundQueueWorker } from '../../outbound/queue.worker';
import { GraphSendApi } from './graph-send-api';
import type { ConversationRow } from '../../infrastructure/messaging.sql';
import { GraphApiFake, metaBody } from '../../testing/meta-peers';
import { type MetaTestApp, newMetaId as newId, startMetaTestApp } from '../../testing/meta-test-app';

const TOKEN = `EAAG${'t'.repeat(40)}`;
const H = 3_600_000;
const graph = new GraphApiFake();
let meta: MetaTestApp;
let app: NestFastifyApplication;

beforeAll(async () => {
  await graph.start();
  meta = await startMetaTestApp({ secret: 'meta-app-secret-for-send-tests', graphUrl: graph.url });
  ({ app } = meta);
});
afterAll(async () => {
  await meta.close();
  await graph.stop();
});

type Payload = { message: { id: string; status: string; error: string | null } };
const events = (t: TestTenant, type: string) => meta.events<Payload>(t, type);
const reply = (_t: TestTenant, id: string, headers: Record<string, string>, payload: object) =>
  app.inject({ method: 'POST', url: `/functions/v1/messaging/conversations/${id}/reply`, headers, payload });

// A tenant whose page received one message from customer `psid`: its conversation.
async function customerWrote(kind: 'messenger' | 'instagram' = 'messenger') {
  const { t, accountId } = await meta.connectAccount(kind, TOKEN);
  const psid = `psid-${newId()}`;
  await meta.send(
    metaBody(kind === 'messenger' ? 'page' : 'instagram', accountId, [
      { sender: { id: psid }, recipient: { id: accountId }, timestamp: Date.now(), message: { mid: `m_${newId()}`, text: 'Hi there' } },
    ]),
  );
  await meta.drain();
  const [conversation] = await meta.rows<ConversationRow>(t, 'SELECT * FROM conversations');
  return { t, accountId, psid, conversation };
}
const setLastCustomerMessage = (t: TestTenant, at: Date) =>
  meta.rows(t, "UPDATE conversations SET last_customer_message_at = $1, window_closes_at = $1::timestamptz + interval '24 hours'", [at]);

describe('replies on Messenger and Instagram through the Graph API', () => {
  it('should send text, image, video and file to the customer with the page token, SENT with Graph message ids', async () => {
    const { t, accountId, psid, conversation } = await customerWrote();
    const before = graph.calls.length;
    const media = ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.mp4', 'https://cdn.example.com/c.pdf'];
    const res = await reply(t, conversation.id, t.session, { message: 'Yes, in stock', media_urls: media });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, conversationId: conversation.id, contactId: conversation.contact_id, result: { recipient_id: psid } });
    const calls = graph.calls.slice(before);
    expect(calls.map((c) => [c.method, c.path, c.authorization])).toEqual(Array(4).fill(['POST', `/v23.0/${accountId}/messages`, `Bearer ${TOKEN}`]));
    expect(calls.map((c) => c.body)).toEqual([
      { recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'Yes, in stock' } },
      ...[
        ['image', media[0]],
        ['video', media[1]],
        ['file', media[2]],
      ].map(([type, url]) => ({
        recipient: { id: psid },
        messaging_type: 'RESPONSE',
        message: { attachment: { type, payload: { url, is_reusable: true } } },
      })),
    ]);
    const stored = await meta.rows<{ status: string; external_id: string; content: string; media: { kind: string }[]; origin: string }>(
      t,
      "SELECT status, external_id, content, media, origin FROM messages WHERE direction = 'OUTBOUND' ORDER BY created_at",
    );
    expect(stored.map((m) => m.status)).toEqual(['SENT', 'SENT', 'SENT', 'SENT']);
    // An agent's reply from the inbox; the customer's message is the customer's.
    expect(stored.map((m) => m.origin)).toEqual(['agent', 'agent', 'agent', 'agent']);
    expect(await meta.rows(t, "SELECT origin, origin_id FROM messages WHERE direction = 'INBOUND'")).toEqual([{ origin: 'customer', origin_id: null }]);
    // In the order sent: the text, then each attachment.
    expect(stored.map((m) => m.content || m.media[0].kind)).toEqual(['Yes, in stock', 'image', 'video', 'document']);
    expect(stored.map((m) => m.external_id)).toEqual(calls.map((_c, i) => `m_fake_${Number(stored[0].external_id.slice(7)) + i}`));
    expect(stored.every((m) => m.external_id.startsWith('m_fake_'))).toBe(true);
    expect(await events(t, 'message.sent')).toHaveLength(4);

    // Receipts: delivery by message id, then Messenger's read watermark for everything before it.
    await meta.send(
      metaBody('page', accountId, [{ sender: { id: psid }, recipient: { id: accountId }, delivery: { mids: [stored[0].external_id], watermark: Date.now() } }]),
    );
    await meta.drain();
    expect((await events(t, 'message.delivered')).map((e) => e.payload.message.status)).toEqual(['DELIVERED']);
    await meta.send(metaBody('page', accountId, [{ sender: { id: psid }, recipient: { id: accountId }, read: { watermark: Date.now() + 1000 } }]));
    await meta.drain();
    const statuses = await meta.rows<{ status: string }>(t, "SELECT status FROM messages WHERE direction = 'OUTBOUND'");
    expect(statuses.map((m) => m.status)).toEqual(['READ', 'READ', 'READ', 'READ']);
    expect(await events(t, 'message.read')).toHaveLength(4);
  });

  it("should store a refused send FAILED with Graph's reason and emit message.failed", async () => {
    const { t, conversation } = await customerWrote('instagram');
    graph.failNext(400, { message: "(#551) This person isn't available right now.", code: 551 });
    const res = await reply(t, conversation.id, t.key, { message: 'Hello', media_urls: ['https://cdn.example.com/a.png'] });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: "Graph API error (400, code 551): (#551) This person isn't available right now.", code: 'provider_error' });
    const stored = await meta.rows<{ status: string; error: string }>(t, "SELECT status, error FROM messages WHERE direction = 'OUTBOUND' ORDER BY created_at");
    expect(stored).toEqual([
      { status: 'FAILED', error: "Graph API error (400, code 551): (#551) This person isn't available right now." },
      { status: 'FAILED', error: 'Not sent: an earlier part of this send failed' },
    ]);
    expect((await events(t, 'message.failed')).map((e) => e.payload.message.error).sort()).toEqual(stored.map((m) => m.error).sort());
  });

  it("should pause the account's paced queue at once when Graph throttles the page (code 613 in a 400), holding the rest", async () => {
    const { t, conversation } = await customerWrote();
    const accountId = conversation.channel_account_id;
    // No gaps, so only the pause holds the second message.
    const pacing = { gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_recipient_min_gap_seconds: 0 };
    await meta.runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [accountId, JSON.stringify(pacing)]);
    const enqueue = (c: ConversationRow, text: string) =>
      app
        .get(OutboundDispatcher)
        .enqueue(t.ctx, { conversationId: c.id }, { message: text, mediaUrls: [], author: { origin: 'rule', originId: randomUUID() } });
    const first = await enqueue(conversation, 'Thanks, we got it');
    const next = await enqueue(conversation, 'An agent will answer soon');
    graph.failNext(400, { message: 'Calls to this api have exceeded the rate limit.', code: 613, type: 'OAuthException' });
    expect(await app.get(OutboundQueueWorker).sendOn(accountId)).toBe(true);
    const [account] = await meta.rows<{ paused_at: Date | null; paused_reason: string }>(
      t,
      'SELECT paused_at, paused_reason FROM channel_accounts WHERE id = $1',
      [accountId],
    );
    expect(account.paused_at).not.toBeNull();
    expect(account.paused_reason).toMatch(/^rate_limited: The provider throttled the sender \(400: Graph API error \(400, code 613\)/);
    const status = async (id: string) => (await meta.rows<{ status: string }>(t, 'SELECT status FROM messages WHERE id = $1', [id]))[0].status;
    expect(await status(first.messageIds[0])).toBe('FAILED');
    // Paused: nothing more goes until an OWNER or ADMIN resumes it.
    const calls = graph.calls.length;
    expect(await app.get(OutboundQueueWorker).sendOn(accountId)).toBe(false);
    expect(graph.calls.length).toBe(calls);
    expect(await status(next.messageIds[0])).toBe('QUEUED');
    const resumed = await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${accountId}/resume`, headers: t.session });
    expect(resumed.json()).toMatchObject({ paused: false });
    expect(await app.get(OutboundQueueWorker).sendOn(accountId)).toBe(true);
    expect(await status(next.messageIds[0])).toBe('SENT');
  });

  it('should refuse what the window forbids with 422 before storing or calling anything, and tag human replies after 24 hours', async () => {
    const { t, conversation } = await customerWrote();
    const view = (await app.inject({ method: 'GET', url: `/functions/v1/messaging/conversations/${conversation.id}`, headers: t.key })).json();
    expect(view).toMatchObject({ channel_kind: 'messenger' });
    expect(new Date(view.window_closes_at).getTime() - new Date(view.last_customer_message_at).getTime()).toBe(24 * H);

    const wrote = new Date(Date.now() - 25 * H);
    await setLastCustomerMessage(t, wrote);
    const before = graph.calls.length;
    const automated = await reply(t, conversation.id, t.key, { message: 'Still interested?' });
    expect(automated.statusCode).toBe(422);
    expect(automated.json()).toMatchObject({
      code: 'channel.window_closed',
      details: { window: 'standard', closed_at: new Date(wrote.getTime() + 24 * H).toISOString() },
    });
    expect(graph.calls.length).toBe(before);
    expect(await meta.rows(t, "SELECT 1 FROM messages WHERE direction = 'OUTBOUND'")).toHaveLength(0);

    const human = await reply(t, conversation.id, t.session, { message: 'Sorry for the wait' });
    expect(human.statusCode).toBe(200);
    expect(graph.calls[graph.calls.length - 1].body).toMatchObject({
      messaging_type: 'MESSAGE_TAG',
      tag: 'HUMAN_AGENT',
      message: { text: 'Sorry for the wait' },
    });

    const eightDays = new Date(Date.now() - 8 * 24 * H);
    await setLastCustomerMessage(t, eightDays);
    const late = await reply(t, conversation.id, t.session, { message: 'Hello?' });
    expect(late.statusCode).toBe(422);
    expect(late.json()).toMatchObject({
      code: 'channel.window_closed',
      details: { window: 'human_agent', closed_at: new Date(eightDays.getTime() + 7 * 24 * H).toISOString() },
    });
    expect(graph.calls.length).toBe(before + 1);
  });

  it('should apply the window at 23:59:59, 24:00:00 and the 7-day edge with an injected clock', async () => {
    const { t, psid, conversation } = await customerWrote();
    const wrote = new Date(conversation.last_customer_message_at!);
    let now = wrote;
    const adapter = new MetaAdapter('messenger', meta.runtime.db, app.get(SecretBox), new GraphSendApi(graph.url, 5000), { now: () => now });
    const dispatcher = new OutboundDispatcher(meta.runtime.db, new ChannelAdapters([adapter]), { gapMinMs: 0, gapMaxMs: 0 });
    const to = { conversationId: conversation.id };
    const human: RequestContext = t.ctx;
    const automated: RequestContext = { ...t.ctx, userId: null, role: 'SYSTEM' };
    const last = () => graph.calls[graph.calls.length - 1].body;
    const byRule = { origin: 'rule' as const, originId: randomUUID() };
    const byAgent = { origin: 'agent' as const, originId: null };

    now = new Date(wrote.getTime() + 24 * H - 1000);
    await dispatcher.send(automated, to, { message: 'at 23:59:59', mediaUrls: [], author: byRule });
    expect(last()).toEqual({ recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'at 23:59:59' } });
    now = new Date(wrote.getTime() + 24 * H);
    await expect(dispatcher.send(automated, to, { message: 'at 24:00:00', mediaUrls: [], author: byRule })).rejects.toMatchObject({
      code: 'channel.window_closed',
      details: { window: 'standard' },
    });
    await dispatcher.send(human, to, { message: 'human at 24:00:00', mediaUrls: [], author: byAgent });
    expect(last()).toMatchObject({ messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' });
    now = new Date(wrote.getTime() + 7 * 24 * H - 1000);
    await dispatcher.send(human, to, { message: 'last second', mediaUrls: [], author: byAgent });
    expect(last()).toMatchObject({ tag: 'HUMAN_AGENT', message: { text: 'last second' } });
    now = new Date(wrote.getTime() + 7 * 24 * H);
    await expect(dispatcher.send(human, to, { message: 'too late', mediaUrls: [], author: byAgent })).rejects.toMatchObject({
      code: 'channel.window_closed',
      details: { window: 'human_agent' },
    });
    const sent = await meta.rows<{ content: string; origin: string; origin_id: string | null }>(
      t,
      "SELECT content, origin, origin_id FROM messages WHERE direction = 'OUTBOUND' ORDER BY created_at",
    );
    expect(sent).toEqual([
      { content: 'at 23:59:59', origin: 'rule', origin_id: byRule.originId },
      { content: 'human at 24:00:00', origin: 'agent', origin_id: null },
      { content: 'last second', origin: 'agent', origin_id: null },
    ]);
  });

  it('should test a channel account against the Graph API with its own token', async () => {
    const { t, accountId } = await customerWrote();
    const [channel] = await meta.rows<{ id: string }>(t, "SELECT id FROM channel_accounts WHERE kind = 'messenger'");
    const test = () => app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${channel.id}/test`, headers: t.key });
    expect((await test()).json()).toEqual({ ok: true });
    expect(graph.calls[graph.calls.length - 1]).toMatchObject({ method: 'GET', path: `/v23.0/${accountId}?fields=id`, authorization: `Bearer ${TOKEN}` });
    graph.failNext(401, { message: 'Error validating access token: Session has expired', code: 190 });
    expect((await test()).json()).toEqual({ ok: false, error: 'Error validating access token: Session has expired' });
    const other = await createTestTenant(app);
    expect((await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${channel.id}/test`, headers: other.key })).statusCode).toBe(404);
    const chatApp = (
      await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload: { kind: 'chat_app', name: 'Line' } })
    ).json();
    const check = await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${chatApp.channel_account.id}/test`, headers: t.key });
    expect(check.statusCode).toBe(422);
  });

  it("should answer bad input with 400 and another organization's conversation with 404, sending nothing", async () => {
    const { t, conversation } = await customerWrote();
    const other = await createTestTenant(app);
    const before = graph.calls.length;
    expect((await reply(other, conversation.id, other.session, { message: 'hi' })).statusCode).toBe(404);
    for (const bad of [
      {},
      { message: '' },
      { message: 7 },
      { message: 'x', media_urls: 'https://a' },
      { message: 'x', media_urls: ['javascript:alert(1)'] },
      { message: 'x'.repeat(4097) },
    ]) {
      expect((await reply(t, conversation.id, t.session, bad)).statusCode).toBe(400);
    }
    expect((await reply(t, 'not-a-uuid', t.session, { message: 'x' })).statusCode).toBe(400);
    expect(graph.calls.length).toBe(before);
  });
});
