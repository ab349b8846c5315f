import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, type HttpsReceiver, type ReceivedRequest, startHttpsReceiver, startTestRuntime } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

const MESSAGING_KINDS = [
  'conversation.created',
  'conversation.assigned',
  'conversation.status.changed',
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'broadcast.response',
] as const;

interface Delivered {
  event: string;
  timestamp: string;
  data: Record<string, unknown> & { id: string };
}

// Every messaging kind of §6, produced through the public API of the composed app (api and worker
// in one process), relayed, and POSTed to an HTTPS receiver on 127.0.0.1: one configuration per
// kind, so each path must receive only its kind, signed, with the record as `data`.
describe('messaging events delivered as webhooks', () => {
  const cert = createSelfSignedCert();
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let receiver: HttpsReceiver;
  let provider: Server;
  // Receivers (numbers) the provider refuses with a 500.
  const refused = new Set<string>();
  let providerSeq = 0;

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert);
    provider = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { UOWCHAT?: { receivers?: { mobileNum: string }[] } };
        const to = body.UOWCHAT?.receivers?.[0]?.mobileNum ?? '';
        if (refused.has(to)) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ status: false, message: 'provider broken' }));
        else
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ status: true, message: 'Message sent', external_id: `ext-${++providerSeq}` }));
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const notifyUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    runtime = await startTestRuntime({
      role: 'all',
      migrations: CONTEXT_MIGRATIONS,
      env: { NOTIFY_URL: notifyUrl, INBOUND_POLL_MS: '50', OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: cert.certPath },
    });
    app = await createApiApp(runtime);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
    await receiver.close();
    provider.closeAllConnections();
    await new Promise<void>((resolve) => provider.close(() => resolve()));
  });

  const pathOf = (kind: string) => `/k/${kind}`;
  // Polls until `probe` gives a value; fails with `what` (and what did arrive) after 15 s.
  const waitUntil = async <T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<Exclude<T, undefined>> => {
    const until = Date.now() + 15_000;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value as Exclude<T, undefined>;
      if (Date.now() > until)
        throw new Error(`${what} not delivered; received: ${receiver.received.map((r) => `${r.path} ${r.body.slice(0, 300)}`).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const parsed = (request: ReceivedRequest) => JSON.parse(request.body) as Delivered;
  // The first delivery at the kind's path whose data satisfies `match`.
  const deliveredFor = (kind: string, match: (data: Delivered['data']) => boolean) =>
    waitUntil(() => receiver.received.find((r) => r.path === pathOf(kind) && match(parsed(r).data)), kind);
  const json = (tenant: TestTenant, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    app.inject({ method, url, headers: tenant.session, ...(payload ? { payload } : {}) });
  const messageByExternalId = async (tenant: TestTenant, externalId: string) =>
    (await json(tenant, 'GET', `/rest/v1/messages?external_id=eq.${externalId}&select=*`)).json()[0] as { id: string; status: string; conversation_id: string };

  it('should deliver each messaging kind, signed, to the configuration subscribed to it only', async () => {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'k-123');
    const secrets = new Map<string, string>();
    for (const kind of MESSAGING_KINDS) {
      const res = await app.inject({
        method: 'POST',
        url: '/rest/v1/webhook_configurations',
        headers: { ...tenant.session, prefer: 'return=representation' },
        payload: { name: kind, url: `${receiver.url}${pathOf(kind)}`, events: [kind] },
      });
      expect(res.statusCode).toBe(201);
      secrets.set(kind, res.json()[0].secret);
    }
    // A channel whose token we hold; sends use the most recent active chat_app account, this one.
    const channel = await json(tenant, 'POST', '/functions/v1/messaging/channel-accounts', { kind: 'chat_app', name: 'Main line' });
    expect(channel.statusCode).toBe(201);
    const { channel_account: account, inbound_token: token } = channel.json() as { channel_account: { id: string }; inbound_token: string };
    const inbound = (payload: object) =>
      app.inject({ method: 'POST', url: `/functions/v1/chat-lite-webhook/${account.id}`, headers: { 'x-channel-token': token }, payload });

    // conversation.created and message.sent: a send to a new number.
    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: tenant.key,
      payload: { to: '201001110001', message: 'Your order shipped', organizationId: tenant.ctx.organizationId, contactName: 'Sara' },
    });
    expect(sent.statusCode).toBe(200);
    const { conversationId, result } = sent.json() as { conversationId: string; result: { external_id: string } };
    const sentMessage = await messageByExternalId(tenant, result.external_id);
    expect(sentMessage.conversation_id).toBe(conversationId);

    // message.failed: the provider answers 500.
    refused.add('201001110002');
    const failed = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: tenant.key,
      payload: { to: '201001110002', message: 'Will fail', organizationId: tenant.ctx.organizationId },
    });
    expect(failed.statusCode).toBe(500);
    const failedConversation = failed.json().conversationId as string | undefined;

    // message.delivered and message.read: status callbacks for the sent message.
    expect((await inbound({ type: 'status', id: result.external_id, status: 'delivered' })).statusCode).toBe(200);
    await deliveredFor('message.delivered', (d) => d.id === sentMessage.id);
    expect((await inbound({ type: 'status', id: result.external_id, status: 'read' })).statusCode).toBe(200);

    // message.received: an inbound message from a new number.
    expect(
      (await inbound({ type: 'message', id: 'wamid.in-1', from: '201001110003@s.whatsapp.net', name: 'Omar', text: 'Is this in stock?' })).statusCode,
    ).toBe(200);

    // broadcast.response: a reply within its window to a broadcast's message (origin broadcast,
    // origin_id the broadcast; campaigns raise it). The message sent is made a broadcast's directly,
    // with its broadcast and its recipient sent now.
    const broadcastId = randomUUID();
    const campaignSend = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: tenant.key,
      payload: { to: '201001110004', message: 'Sale today', organizationId: tenant.ctx.organizationId },
    });
    expect(campaignSend.statusCode).toBe(200);
    const campaignMessage = await messageByExternalId(tenant, campaignSend.json().result.external_id);
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`UPDATE messages SET origin = 'broadcast', origin_id = $2 WHERE id = $1`, [campaignMessage.id, broadcastId]);
      await tx.query(
        `INSERT INTO broadcasts (id, organization_id, name, channel_account_id, channel_kind, audience, content, personalised, status, started_at)
         SELECT $2, organization_id, 'Sale', channel_account_id, 'chat_app', '{}', '{"text": "Sale today"}', false, 'sending', now() FROM messages WHERE id = $1`,
        [campaignMessage.id, broadcastId],
      );
      await tx.query(
        `INSERT INTO broadcast_recipients (organization_id, broadcast_id, contact_id, message_id, status, queued_at, sent_at)
         SELECT organization_id, $2, contact_id, id, 'sent', now(), now() FROM messages WHERE id = $1`,
        [campaignMessage.id, broadcastId],
      );
    });
    expect(
      (await inbound({ type: 'message', id: 'wamid.in-2', from: '201001110004', text: 'Interested!', reply_to: campaignSend.json().result.external_id }))
        .statusCode,
    ).toBe(200);

    // conversation.assigned and conversation.status.changed: the inbox endpoints.
    const assigned = await json(tenant, 'PATCH', `/functions/v1/messaging/conversations/${conversationId}/assignee`, { assignee_id: tenant.ctx.userId });
    expect(assigned.statusCode).toBe(200);
    const status = await json(tenant, 'PATCH', `/functions/v1/messaging/conversations/${conversationId}/status`, { status: 'PENDING' });
    expect(status.statusCode).toBe(200);

    const received = await deliveredFor('message.received', (d) => d.external_id === 'wamid.in-1');
    const broadcastReply = await deliveredFor('broadcast.response', (d) => d.external_id === 'wamid.in-2');
    const checks: [string, ReceivedRequest][] = [
      ['conversation.created', await deliveredFor('conversation.created', (d) => d.id === conversationId)],
      ['message.sent', await deliveredFor('message.sent', (d) => d.id === sentMessage.id)],
      [
        'message.failed',
        await deliveredFor('message.failed', (d) => d.status === 'FAILED' && (!failedConversation || d.conversation_id === failedConversation)),
      ],
      ['message.delivered', await deliveredFor('message.delivered', (d) => d.id === sentMessage.id)],
      ['message.read', await deliveredFor('message.read', (d) => d.id === sentMessage.id)],
      ['message.received', received],
      ['broadcast.response', broadcastReply],
      ['conversation.assigned', await deliveredFor('conversation.assigned', (d) => d.id === conversationId)],
      ['conversation.status.changed', await deliveredFor('conversation.status.changed', (d) => d.id === conversationId)],
    ];
    expect(checks.map(([kind]) => kind).sort()).toEqual([...MESSAGING_KINDS].sort());

    for (const [kind, request] of checks) {
      const secret = secrets.get(kind)!;
      const body = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Delivered;
      expect(request.headers['x-webhook-signature']).toBe(
        `sha256=${createHmac('sha256', secret).update(`${request.headers['x-webhook-timestamp']}.${request.body}`).digest('hex')}`,
      );
      expect(request.headers['x-webhook-event']).toBe(kind);
      expect(body.event).toBe(kind);
      expect(body.data).not.toHaveProperty('actor_id');
    }
    // Each path got its own kind only.
    for (const kind of MESSAGING_KINDS) {
      const kinds = new Set(receiver.received.filter((r) => r.path === pathOf(kind)).map((r) => r.headers['x-webhook-event']));
      expect([...kinds]).toEqual([kind]);
    }

    // `data` is the record as the data API returns it, plus the event's extra facts as `changes`.
    // (Timestamps compared to the millisecond: events carry ISO strings, the data API microseconds.)
    const instants = (row: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k.endsWith('_at') && typeof v === 'string' ? new Date(v).toISOString() : v]));
    const record = async (table: string, id: string) =>
      instants((await json(tenant, 'GET', `/rest/v1/${table}?id=eq.${id}&select=*`)).json()[0] as Record<string, unknown>);
    const dataOf = (kind: string) => parsed(checks.find(([k]) => k === kind)![1]).data;
    // Who wrote each message is in its data: chat-lite-send is the API's, an inbound message the customer's.
    expect(dataOf('message.sent')).toMatchObject({
      id: sentMessage.id,
      direction: 'OUTBOUND',
      status: 'SENT',
      content: 'Your order shipped',
      external_id: result.external_id,
      origin: 'api',
      origin_id: null,
    });
    expect(dataOf('message.failed')).toMatchObject({ direction: 'OUTBOUND', status: 'FAILED', content: 'Will fail' });
    expect(dataOf('message.delivered')).toMatchObject({ status: 'DELIVERED', changes: { from_status: 'SENT' } });
    expect(dataOf('message.read')).toMatchObject({ status: 'READ', changes: { from_status: 'DELIVERED' } });
    const receivedData = dataOf('message.received');
    const { changes: receivedChanges, ...receivedRecord } = receivedData;
    expect(instants(receivedRecord)).toEqual(await record('messages', receivedData.id));
    expect(receivedRecord).toMatchObject({ direction: 'INBOUND', status: 'DELIVERED', content: 'Is this in stock?', origin: 'customer', origin_id: null });
    expect(receivedChanges).toEqual({ contact_id: expect.any(String) });
    expect(dataOf('broadcast.response')).toMatchObject({
      direction: 'INBOUND',
      content: 'Interested!',
      origin: 'customer',
      changes: { replied_to_message_id: campaignMessage.id, broadcast_id: broadcastId, campaign_id: null },
    });
    expect(dataOf('conversation.created')).toMatchObject({ id: conversationId, status: 'OPEN' });
    expect(dataOf('conversation.assigned')).toMatchObject({ id: conversationId, assignee_id: tenant.ctx.userId, changes: { previous_assignee_id: null } });
    const { changes: statusChanges, ...conversationRecord } = dataOf('conversation.status.changed');
    expect(instants(conversationRecord)).toEqual(await record('conversations', conversationId));
    expect(statusChanges).toEqual({ from_status: 'OPEN', to_status: 'PENDING' });
  }, 60_000);
});
