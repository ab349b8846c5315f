import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { OrganizationService } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { createApiApp } from '../src/create-api-app';

interface ProviderCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: { UOWCHAT: { receivers: { mobileNum: string }[]; message: string } };
}

interface TimelineEntry {
  type: string;
  source: string;
  summary: string;
  contact_id: string;
  data: Record<string, unknown>;
}

// Across contexts in the composed app (role 'all': the outbox relay and the consumers run):
// a send through a real provider on loopback creates the contact, and the CRM's timeline of that
// contact shows the sent message; a reply through the inbound receiver shows up there too.
describe('messaging on the CRM timeline, end to end', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let provider: Server;
  const calls: ProviderCall[] = [];

  beforeAll(async () => {
    provider = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        calls.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: true, message: 'Message sent', external_id: `ext-${calls.length}` }));
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const notifyUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    runtime = await startTestRuntime({ role: 'all', migrations: CONTEXT_MIGRATIONS, env: { NOTIFY_URL: notifyUrl, INBOUND_POLL_MS: '50' } });
    app = await createApiApp(runtime);
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
    await new Promise((resolve) => provider.close(resolve));
  });

  const timeline = async (t: TestTenant, contactId: string) =>
    app.inject({ method: 'GET', url: `/functions/v1/contacts/${contactId}/timeline`, headers: t.key });
  // The timeline is written by a consumer after the relay publishes: poll for it.
  const timelineWith = async (t: TestTenant, contactId: string, type: string): Promise<TimelineEntry[]> => {
    for (let i = 0; i < 250; i++) {
      const entries: TimelineEntry[] = (await timeline(t, contactId)).json().entries;
      if (entries.some((e) => e.type === type)) return entries;
      await sleep(40);
    }
    throw new Error(`no ${type} on the timeline of ${contactId}`);
  };

  it('should show the sent message and the inbound reply on the contact timeline, and only to its organization', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'appgain_api_key', 'provider-key-e2e');
    const number = '201009998877';

    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: number, message: 'Your order has shipped', organizationId: t.ctx.organizationId, contactName: 'Mona' },
    });
    expect(sent.statusCode).toBe(200);
    const { contactId, conversationId } = sent.json();
    const [call] = calls.filter((c) => c.body.UOWCHAT.receivers[0].mobileNum === number);
    expect(call).toMatchObject({
      path: `/${t.ctx.organizationId}/send`,
      headers: { appapikey: 'provider-key-e2e' },
      body: { UOWCHAT: { message: 'Your order has shipped' } },
    });

    const afterSend = await timelineWith(t, contactId, 'message.sent');
    const sentEntry = afterSend.find((e) => e.type === 'message.sent')!;
    expect(sentEntry).toMatchObject({ source: 'messaging', contact_id: contactId, summary: 'Message sent: Your order has shipped' });
    expect(sentEntry.data).toMatchObject({ conversation_id: conversationId, direction: 'OUTBOUND', status: 'SENT', content: 'Your order has shipped' });
    // The CRM's own contact.created (the send made the contact) is there too.
    expect(afterSend.map((e) => e.type)).toContain('contact.created');

    // The customer answers through the inbound receiver of a channel account.
    const channel = (
      await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload: { kind: 'chat_app', name: 'Main line' } })
    ).json();
    const inbound = await app.inject({
      method: 'POST',
      url: `/functions/v1/chat-lite-webhook/${channel.channel_account.id}`,
      headers: { 'x-channel-token': channel.inbound_token },
      payload: { type: 'message', id: 'wamid.e2e.1', from: `+${number}`, text: 'Thank you!' },
    });
    expect(inbound.statusCode).toBe(200);
    const afterReply = await timelineWith(t, contactId, 'message.received');
    expect(afterReply.find((e) => e.type === 'message.received')).toMatchObject({
      contact_id: contactId,
      summary: 'Message received: Thank you!',
      data: { direction: 'INBOUND', content: 'Thank you!' },
    });
    // Newest first, each event once.
    expect(afterReply.filter((e) => e.type.startsWith('message.')).map((e) => e.type)).toEqual(['message.received', 'message.sent']);

    // Another organization cannot read this contact's timeline.
    const foreign = await timeline(other, contactId);
    expect(foreign.statusCode).toBe(404);
    expect(JSON.stringify(foreign.json())).not.toContain('Your order has shipped');
  });
});
