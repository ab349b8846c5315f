import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

interface ProviderCall {
  at: number;
  message: string;
  to: string;
}

// Scheduled sends over HTTP on the composed app (api and worker in one process: the job runner's
// scheduled-send pass sends them), with a loopback chat-app provider on 127.0.0.1.
describe('scheduled messages over HTTP', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let provider: Server;
  const calls: ProviderCall[] = [];

  beforeAll(async () => {
    provider = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { UOWCHAT: { message: string; receivers: { mobileNum: string }[] } };
        calls.push({ at: Date.now(), message: body.UOWCHAT.message, to: body.UOWCHAT.receivers[0].mobileNum });
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: true, message: 'Message sent', external_id: `ext-${calls.length}` }));
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const notifyUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    runtime = await startTestRuntime({
      role: 'all',
      migrations: CONTEXT_MIGRATIONS,
      env: { NOTIFY_URL: notifyUrl, INBOUND_POLL_MS: '50', SEND_GAP_MIN_MS: '0', SEND_GAP_MAX_MS: '0' },
    });
    app = await createApiApp(runtime);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
    provider.closeAllConnections();
    await new Promise<void>((resolve) => provider.close(() => resolve()));
  });

  const call = (headers: Record<string, string>, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const until = async <T>(probe: () => Promise<T | undefined>, what: string, ms: number): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > end) throw new Error(`${what}: not in ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  // A tenant with a chat-app line whose token we hold, and a conversation with a customer.
  async function conversationWithCustomer(number: string) {
    const t: TestTenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'appgain_api_key', 'k-123');
    const channel = (await call(t.session, 'POST', '/functions/v1/messaging/channel-accounts', { kind: 'chat_app', name: 'Line' })).json();
    const sent = await call(t.key, 'POST', '/functions/v1/chat-lite-send', { to: number, message: 'Welcome', organizationId: t.ctx.organizationId });
    expect(sent.statusCode).toBe(200);
    const customerWrites = (id: string, text: string) =>
      app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${channel.channel_account.id}`,
        headers: { 'x-channel-token': channel.inbound_token },
        payload: { type: 'message', id, from: number, text },
      });
    return { t, conversationId: sent.json().conversationId as string, customerWrites };
  }

  it('should schedule, list, edit, cancel, cancel on a reply, and send within 30 s of send_at as its author', async () => {
    const number = '201005550101';
    const { t, conversationId } = await conversationWithCustomer(number);
    const other = await conversationWithCustomer('201005550102');
    const agent = await memberHeaders(app, t, 'AGENT');
    const base = `/functions/v1/messaging`;

    // Scheduled by an agent a few seconds ahead, then edited.
    const sendAt = inSeconds(4);
    const made = await call(agent, 'POST', `${base}/conversations/${conversationId}/scheduled-messages`, { text: 'Your table is ready', send_at: sendAt });
    expect(made.statusCode).toBe(201);
    const id: string = made.json().id;
    expect(made.json()).toMatchObject({ conversation_id: conversationId, status: 'scheduled', send_at: sendAt, cancel_on_reply: true, sent_message_ids: [] });
    const edited = await call(agent, 'PATCH', `${base}/scheduled-messages/${id}`, { text: 'Your table is ready now' });
    expect(edited.json()).toMatchObject({ id, text: 'Your table is ready now', status: 'scheduled' });

    // Another, cancelled by the owner (twice: the second changes nothing).
    const later = (
      await call(t.session, 'POST', `${base}/conversations/${conversationId}/scheduled-messages`, { text: 'Later', send_at: inSeconds(600) })
    ).json();
    expect((await call(t.session, 'DELETE', `${base}/scheduled-messages/${later.id}`)).json()).toMatchObject({ status: 'cancelled' });
    const again = await call(t.session, 'DELETE', `${base}/scheduled-messages/${later.id}`);
    expect([again.statusCode, again.json().status]).toEqual([200, 'cancelled']);

    // Listed by the function and the data API; another organization sees none of them.
    const scheduled = (await call(t.key, 'GET', `${base}/scheduled-messages?status=scheduled&conversation_id=${conversationId}`)).json();
    expect(scheduled.scheduled_messages.map((m: { id: string }) => m.id)).toEqual([id]);
    const rest = await call(t.session, 'GET', '/rest/v1/scheduled_messages?select=id,status,text&order=send_at.asc');
    expect(rest.json()).toEqual([
      { id, status: 'scheduled', text: 'Your table is ready now' },
      { id: later.id, status: 'cancelled', text: 'Later' },
    ]);
    expect((await call(other.t.session, 'GET', '/rest/v1/scheduled_messages?select=id')).json()).toEqual([]);
    expect((await call(other.t.session, 'GET', `${base}/scheduled-messages/${id}`)).statusCode).toBe(404);
    const write = await app.inject({ method: 'POST', url: '/rest/v1/scheduled_messages', headers: t.session, payload: { text: 'forged' } });
    expect(write.statusCode).toBeGreaterThanOrEqual(400);
    expect(write.statusCode).toBeLessThan(500);

    // The other conversation's scheduled message is cancelled by its customer's reply (the worker stores it).
    const replied = (
      await call(other.t.session, 'POST', `${base}/conversations/${other.conversationId}/scheduled-messages`, { text: 'Checking in', send_at: inSeconds(5) })
    ).json();
    expect((await other.customerWrites('in-e2e-1', 'All good, thanks')).statusCode).toBe(200);
    await until(
      async () => ((await call(other.t.session, 'GET', `${base}/scheduled-messages/${replied.id}`)).json().status === 'cancelled_by_reply' ? true : undefined),
      'cancelled by the reply',
      10_000,
    );

    // Sent by the worker's pass within 30 s of send_at, once, as the agent's reply with origin scheduled.
    const sent = await until(
      async () => {
        const row = (await call(agent, 'GET', `${base}/scheduled-messages/${id}`)).json();
        return row.status === 'scheduled' || row.status === 'sending' ? undefined : row;
      },
      'sent',
      40_000,
    );
    expect(sent).toMatchObject({ status: 'sent', error: null });
    expect(new Date(sent.sent_at).getTime()).toBeGreaterThanOrEqual(new Date(sendAt).getTime());
    expect(new Date(sent.sent_at).getTime() - new Date(sendAt).getTime()).toBeLessThan(30_000);
    const delivered = calls.filter((c) => c.message === 'Your table is ready now');
    expect(delivered).toEqual([{ at: expect.any(Number), message: 'Your table is ready now', to: number }]);
    expect(delivered[0].at).toBeGreaterThanOrEqual(new Date(sendAt).getTime());
    const messages = await call(
      t.session,
      'GET',
      `/rest/v1/messages?origin=eq.scheduled&origin_id=eq.${id}&select=id,content,status,direction,metadata->>sender_user_id`,
    );
    expect(messages.json()).toEqual([
      { id: sent.sent_message_ids[0], content: 'Your table is ready now', status: 'SENT', direction: 'OUTBOUND', sender_user_id: expect.any(String) },
    ]);
    expect(calls.filter((c) => c.message === 'Checking in' || c.message === 'Later')).toEqual([]);

    // Sent: no edit, no cancel.
    expect((await call(agent, 'DELETE', `${base}/scheduled-messages/${id}`)).statusCode).toBe(409);
    expect((await call(agent, 'PATCH', `${base}/scheduled-messages/${id}`, { send_at: inSeconds(60) })).statusCode).toBe(409);
  }, 90_000);
});
