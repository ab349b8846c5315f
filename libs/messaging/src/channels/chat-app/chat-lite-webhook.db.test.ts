import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { messagingMigrations, messagingQueues } from '../../index';
import { MessagingModule } from '../../messaging.module';
import { RecordingProvider } from '../../testing/recording-provider';
import { waitFor } from '../../testing/wait-for';

const provider = new RecordingProvider();
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;
let counter = 0;
const newNumber = () => `2011${String(10_000_000 + ++counter * 7919).slice(-8)}`;

beforeAll(async () => {
  await provider.start();
  ({ app, runtime, close } = await startTestApp([MessagingModule], {
    role: 'all',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
    env: { NOTIFY_URL: provider.url, INBOUND_POLL_MS: '50', OUTBOUND_ALLOW_HOSTS: '127.0.0.1' },
    jobs: { queues: messagingQueues },
  }));
});
// A provider's media host on loopback (allowed through OUTBOUND_ALLOW_HOSTS in this test).
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const mediaHost = createServer((req, res) =>
  req.url === '/pic.png' ? res.writeHead(200, { 'content-type': 'image/png' }).end(PNG) : res.writeHead(404).end(),
);
let mediaUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => mediaHost.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(mediaHost.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await close();
  await provider.stop();
  mediaHost.closeAllConnections();
  await new Promise((resolve) => mediaHost.close(resolve));
});

interface Channel {
  tenant: TestTenant;
  id: string;
  token: string;
}

const newChannel = async (): Promise<Channel> => {
  const tenant = await createTestTenant(app);
  await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'provider-key-1');
  const res = await app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: tenant.key,
    payload: { kind: 'chat_app', name: 'Main line' },
  });
  expect(res.statusCode).toBe(201);
  const body = res.json();
  expect(body.inbound_path).toBe(`/functions/v1/chat-lite-webhook/${body.channel_account.id}`);
  return { tenant, id: body.channel_account.id, token: body.inbound_token };
};
const post = (channelId: string, token: string | undefined, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: `/functions/v1/chat-lite-webhook/${channelId}`,
    headers: token ? { 'x-channel-token': token } : {},
    payload: payload as object,
  });
const rows = <T = Record<string, unknown>>(ctx: RequestContext, sql: string, params: unknown[] = []) =>
  runtime.db.inTenant(ctx, (tx) => tx.query<T>(sql, params));
const eventsOf = (ctx: RequestContext) =>
  runtime.db.asSystem((tx) =>
    tx.query<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox WHERE organization_id = $1 AND source = 'messaging' ORDER BY seq`,
      [ctx.organizationId],
    ),
  );
const settled = (ctx: RequestContext) =>
  waitFor(async () => (await rows<{ n: number }>(ctx, 'SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NULL'))[0].n === 0);

describe('inbound receiver POST /functions/v1/chat-lite-webhook/<channelAccountId>', () => {
  it('should acknowledge at once, then store contact, conversation and the INBOUND message once, emitting message.received', async () => {
    const ch = await newChannel();
    const from = newNumber();
    const payload = {
      type: 'message',
      id: 'wamid.1',
      from: `${from}@s.whatsapp.net`,
      name: 'Omar',
      text: 'Hi, is this in stock?',
      timestamp: '2026-11-23T10:00:00Z',
    };
    const res = await post(ch.id, ch.token, payload);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, id: expect.any(String) });
    // The provider retries the same message: acknowledged, never stored twice.
    expect((await post(ch.id, ch.token, payload)).statusCode).toBe(200);
    await settled(ch.tenant.ctx);

    const [contact] = await rows<{ id: string; first_name: string; phones: string[] }>(ch.tenant.ctx, 'SELECT id, first_name, phones FROM contacts');
    expect(contact).toMatchObject({ first_name: 'Omar', phones: [`+${from}`] });
    const [conversation] = await rows(ch.tenant.ctx, 'SELECT * FROM conversations');
    expect(conversation).toMatchObject({ contact_id: contact.id, channel_account_id: ch.id, status: 'OPEN', unread_count: 1 });
    const messages = await rows(ch.tenant.ctx, 'SELECT * FROM messages');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      direction: 'INBOUND',
      content: 'Hi, is this in stock?',
      external_id: 'wamid.1',
      conversation_id: conversation.id,
      metadata: { sender_name: 'Omar' },
    });
    expect((await eventsOf(ch.tenant.ctx)).map((e) => e.type)).toEqual(['conversation.created', 'message.received']);
    const [duplicate] = await rows<{ last_error: string }>(ch.tenant.ctx, 'SELECT last_error FROM inbound_events WHERE last_error IS NOT NULL');
    expect(duplicate.last_error).toMatch(/duplicate/);

    // A later message from the same number joins the same conversation.
    await post(ch.id, ch.token, { type: 'message', id: 'wamid.2', from: `+${from}`, media: [{ url: `${mediaUrl}/pic.png`, kind: 'image' }] });
    await settled(ch.tenant.ctx);
    expect(await rows(ch.tenant.ctx, 'SELECT unread_count FROM conversations')).toEqual([{ unread_count: 2 }]);
  });

  it('should refuse unknown channels and wrong tokens with 401 and bad payloads with 400, storing nothing', async () => {
    const a = await newChannel();
    const b = await newChannel();
    const good = { type: 'message', id: 'x1', from: newNumber(), text: 'hi' };
    expect((await post(a.id, undefined, good)).statusCode).toBe(401);
    expect((await post(a.id, 'wrong', good)).statusCode).toBe(401);
    expect((await post(a.id, b.token, good)).statusCode).toBe(401);
    expect((await post('3f1c0a52-0000-4000-8000-000000000000', a.token, good)).statusCode).toBe(401);
    expect((await post('not-a-uuid', a.token, good)).statusCode).toBe(401);
    for (const bad of [
      { type: 'message', from: newNumber(), text: 'no id' },
      { type: 'message', id: 'x', text: 'no from' },
      { type: 'status', id: 'x', status: 'seen' },
      { id: 'x' },
      { type: 'message', id: 'x', from: newNumber(), text: 'x'.repeat(9000) },
    ]) {
      const res = await post(a.id, a.token, bad);
      expect(res.statusCode).toBe(400);
      expect(typeof res.json().error).toBe('string');
    }
    // Credentials are checked before the payload: a bad payload with a wrong token is a 401.
    expect((await post(a.id, 'wrong', { id: 'x' })).statusCode).toBe(401);
    expect(await rows(a.tenant.ctx, 'SELECT id FROM inbound_events')).toEqual([]);
    await rows(a.tenant.ctx, 'UPDATE channel_accounts SET is_active = false WHERE id = $1', [a.id]);
    expect((await post(a.id, a.token, good)).statusCode).toBe(403);
    expect(await rows(a.tenant.ctx, 'SELECT id FROM inbound_events')).toEqual([]);
    // A rotated token replaces the old one.
    const rotated = (await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${b.id}/rotate-token`, headers: b.tenant.key })).json();
    expect((await post(b.id, b.token, good)).statusCode).toBe(401);
    expect((await post(b.id, rotated.inbound_token, good)).statusCode).toBe(200);
    // Another organization cannot rotate it.
    expect((await app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${b.id}/rotate-token`, headers: a.tenant.key })).statusCode).toBe(
      404,
    );
  });

  it('should apply delivered/read/failed callbacks by provider id, never moving a status backwards', async () => {
    const ch = await newChannel();
    const to = newNumber();
    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: ch.tenant.key,
      payload: { to, message: 'Your order shipped', organizationId: ch.tenant.ctx.organizationId },
    });
    expect(sent.statusCode).toBe(200);
    const [message] = await rows<{ id: string; external_id: string; channel_account_id: string }>(
      ch.tenant.ctx,
      'SELECT id, external_id, channel_account_id FROM messages',
    );
    // The send path used the most recent active channel: the one created above.
    expect(message.channel_account_id).toBe(ch.id);
    const status = async (s: string) => {
      expect((await post(ch.id, ch.token, { type: 'status', id: message.external_id, status: s })).statusCode).toBe(200);
      await settled(ch.tenant.ctx);
      return (await rows<{ status: string }>(ch.tenant.ctx, 'SELECT status FROM messages WHERE id = $1', [message.id]))[0].status;
    };
    expect(await status('delivered')).toBe('DELIVERED');
    expect(await status('read')).toBe('READ');
    expect(await status('delivered')).toBe('READ');
    expect(await status('failed')).toBe('READ');
    const types = (await eventsOf(ch.tenant.ctx)).map((e) => e.type);
    expect(types.filter((t) => /^message\.(delivered|read|failed)$/.test(t))).toEqual(['message.delivered', 'message.read']);

    // A callback for a message not stored (yet) is kept and retried later.
    expect((await post(ch.id, ch.token, { type: 'status', id: 'unknown-id', status: 'read' })).statusCode).toBe(200);
    const [pending] = await waitFor(async () => {
      const r = await rows<{ attempts: number; processed_at: Date | null; last_error: string }>(
        ch.tenant.ctx,
        "SELECT attempts, processed_at, last_error FROM inbound_events WHERE payload->>'id' = 'unknown-id' AND attempts > 0",
      );
      return r.length > 0 ? r : undefined;
    });
    expect(pending).toMatchObject({ attempts: 1, processed_at: null, last_error: expect.stringContaining('unknown-id') });

    // failed is accepted while a message is only SENT.
    const to2 = newNumber();
    await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: ch.tenant.key,
      payload: { to: to2, message: 'x', organizationId: ch.tenant.ctx.organizationId },
    });
    const [second] = await rows<{ external_id: string }>(ch.tenant.ctx, "SELECT external_id FROM messages WHERE content = 'x'");
    await post(ch.id, ch.token, { type: 'status', id: second.external_id, status: 'failed', error: 'number not on the network' });
    const failed = await waitFor(
      async () =>
        (await rows<{ status: string; error: string }>(ch.tenant.ctx, "SELECT status, error FROM messages WHERE content = 'x' AND status = 'FAILED'"))[0],
    );
    expect(failed).toEqual({ status: 'FAILED', error: 'number not on the network' });
  });

  it('should name the campaign message a customer replies to in message.received, and wake a snoozed conversation', async () => {
    const ch = await newChannel();
    const from = newNumber();
    await post(ch.id, ch.token, { type: 'message', id: 'in-1', from, text: 'hello' });
    await settled(ch.tenant.ctx);
    const [conversation] = await rows<{ id: string; contact_id: string }>(ch.tenant.ctx, 'SELECT id, contact_id FROM conversations');
    // A broadcast's message (origin broadcast, origin_id the broadcast) carrying its campaign, and an
    // agent's message with an old-style broadcast_id key: the origin decides, not the key.
    const broadcastId = randomUUID();
    await rows(
      ch.tenant.ctx,
      `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, external_id, metadata, origin, origin_id)
      VALUES (app_org_id(), $1, $2, $3, 'OUTBOUND', 'SENT', 'Black Friday: 30% off', 'camp-msg-1', '{"campaign_id": "c-42"}', 'broadcast', $4),
             (app_org_id(), $1, $2, $3, 'OUTBOUND', 'SENT', 'Anything else?', 'agent-msg-1', '{"broadcast_id": "b-1"}', 'agent', NULL)`,
      [conversation.id, conversation.contact_id, ch.id, broadcastId],
    );
    await rows(ch.tenant.ctx, "UPDATE conversations SET status = 'SNOOZED', snoozed_until = now() + interval '1 day'");
    await post(ch.id, ch.token, { type: 'message', id: 'in-2', from, text: 'I want it', reply_to: 'camp-msg-1' });
    await settled(ch.tenant.ctx);
    const events = await eventsOf(ch.tenant.ctx);
    const replies = () => events.filter((e) => e.type === 'message.received' && e.payload.replied_to);
    expect(replies().map((e) => e.payload)).toEqual([
      expect.objectContaining({
        channel_kind: 'chat_app',
        replied_to: { message_id: expect.any(String), origin: 'broadcast', origin_id: broadcastId, campaign_id: 'c-42' },
        message: expect.objectContaining({ content: 'I want it', direction: 'INBOUND' }),
        actor_id: null,
      }),
    ]);
    // Messaging no longer raises broadcast.response itself: campaigns do, within the reply window.
    expect(events.filter((e) => e.type === 'broadcast.response')).toEqual([]);
    expect(events.find((e) => e.type === 'conversation.status.changed')?.payload).toMatchObject({ from_status: 'SNOOZED', to_status: 'OPEN' });
    expect(await rows(ch.tenant.ctx, 'SELECT status, snoozed_until FROM conversations')).toEqual([{ status: 'OPEN', snoozed_until: null }]);
    // A reply to the agent's message (a broadcast_id key, origin agent) names no campaign message.
    await post(ch.id, ch.token, { type: 'message', id: 'in-3', from, text: 'No thanks', reply_to: 'agent-msg-1' });
    await settled(ch.tenant.ctx);
    const later = (await eventsOf(ch.tenant.ctx)).filter((e) => e.type === 'message.received');
    expect(later.map((e) => [(e.payload.message as { content: string }).content, e.payload.replied_to ?? null])).toEqual([
      ['hello', null],
      ['I want it', expect.objectContaining({ origin: 'broadcast' })],
      ['No thanks', null],
    ]);
  });

  it('should name the sequence’s message a customer replies to in message.received', async () => {
    const ch = await newChannel();
    const from = newNumber();
    await post(ch.id, ch.token, { type: 'message', id: 'seq-in-1', from, text: 'hello' });
    await settled(ch.tenant.ctx);
    const [conversation] = await rows<{ id: string; contact_id: string }>(ch.tenant.ctx, 'SELECT id, contact_id FROM conversations');
    const sequenceId = randomUUID();
    await rows(
      ch.tenant.ctx,
      `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, external_id, metadata, origin, origin_id)
      VALUES (app_org_id(), $1, $2, $3, 'OUTBOUND', 'SENT', 'Day 2: did you try it?', 'seq-msg-1', '{}', 'sequence', $4)`,
      [conversation.id, conversation.contact_id, ch.id, sequenceId],
    );
    // No reply_to: the conversation's last outbound message is the one answered.
    await post(ch.id, ch.token, { type: 'message', id: 'seq-in-2', from, text: 'Not yet' });
    await settled(ch.tenant.ctx);
    const replies = (await eventsOf(ch.tenant.ctx)).filter((e) => e.type === 'message.received' && e.payload.replied_to);
    expect(replies.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        replied_to: { message_id: expect.any(String), origin: 'sequence', origin_id: sequenceId, campaign_id: null },
        message: expect.objectContaining({ content: 'Not yet' }),
      }),
    ]);
  });

  it('should re-host inbound media into own storage, and refuse to fetch private addresses', async () => {
    const ch = await newChannel();
    const media = [
      { url: `${mediaUrl}/pic.png`, kind: 'image' },
      { url: 'http://169.254.169.254/latest/meta-data', kind: 'image' },
      { url: `${mediaUrl}/gone.png`, kind: 'image' },
    ];
    await post(ch.id, ch.token, { type: 'message', id: 'media-1', from: newNumber(), media });
    await settled(ch.tenant.ctx);
    const [message] = await rows<{ media: { url: string; original_url: string; rehost_error?: string }[] }>(ch.tenant.ctx, 'SELECT media FROM messages');
    const [own, metadataService, missing] = message.media;
    expect(own.url).toMatch(new RegExp(`/functions/v1/messaging/media/${ch.tenant.ctx.organizationId}/[0-9a-f]{64}\\.png$`));
    expect(own).toMatchObject({ original_url: media[0].url });
    expect(own.rehost_error).toBeUndefined();
    const served = await app.inject({ method: 'GET', url: new URL(own.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    expect(metadataService).toMatchObject({ url: media[1].url, rehost_error: expect.stringContaining('IP address targets are not allowed') });
    expect(missing).toMatchObject({ url: media[2].url, rehost_error: 'media download answered 404' });
    // Unknown or malformed names are 404, never a path outside the store.
    expect((await app.inject({ method: 'GET', url: `/functions/v1/messaging/media/${ch.tenant.ctx.organizationId}/..%2F..%2Fetc%2Fpasswd` })).statusCode).toBe(
      404,
    );
    expect((await app.inject({ method: 'GET', url: `/functions/v1/messaging/media/${ch.tenant.ctx.organizationId}/${'0'.repeat(64)}.png` })).statusCode).toBe(
      404,
    );
  });
});
