import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant } from '@engage/identity/testing';
import { OrganizationService } from '@engage/identity';
import { startComposedApp } from './composed-app';

// Messaging tables through the data API of the composed app: readable, embeddable, not writable.
describe('messaging tables on /rest/v1', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startComposedApp());
  });
  afterAll(() => close());

  it("should read conversations with their contact and messages of the caller's organization only, and refuse writes", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const conversationOf = new Map<string, string>();
    for (const t of [a, b]) {
      await app.get(OrganizationService).setSetting(t.ctx.organizationId, 'appgain_api_key', 'k-123');
      const sent = await app.inject({
        method: 'POST',
        url: '/functions/v1/chat-lite-send',
        headers: t.key,
        payload: { to: '201001234567', message: `hi from ${t.ctx.organizationId}`, organizationId: t.ctx.organizationId, contactName: 'Sara' },
      });
      expect(sent.statusCode).toBe(200);
      conversationOf.set(t.ctx.organizationId, sent.json().conversationId);
    }
    const res = await app.inject({
      method: 'GET',
      url: '/rest/v1/conversations?select=status,unread_count,contacts(first_name)&status=eq.OPEN',
      headers: a.session,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ status: 'OPEN', unread_count: 0, contacts: { first_name: 'Sara' } }]);
    const messages = await app.inject({ method: 'GET', url: '/rest/v1/messages?select=direction,status,content,metadata->>sender_name', headers: a.session });
    expect(messages.json()).toEqual([{ direction: 'OUTBOUND', status: 'SENT', content: `hi from ${a.ctx.organizationId}`, sender_name: null }]);
    // Who wrote each message, selected and filtered like any column: chat-lite-send is the API's, a
    // reply from the inbox an agent's.
    const conversation = conversationOf.get(a.ctx.organizationId)!;
    const reply = await app.inject({
      method: 'POST',
      url: `/functions/v1/messaging/conversations/${conversation}/reply`,
      headers: a.session,
      payload: { message: 'Anything else?' },
    });
    expect(reply.statusCode).toBe(200);
    const byOrigin = (query: string) => app.inject({ method: 'GET', url: `/rest/v1/messages?select=content,origin,origin_id&${query}`, headers: a.session });
    expect((await byOrigin('origin=eq.api')).json()).toEqual([{ content: `hi from ${a.ctx.organizationId}`, origin: 'api', origin_id: null }]);
    expect((await byOrigin('origin=eq.agent')).json()).toEqual([{ content: 'Anything else?', origin: 'agent', origin_id: null }]);
    expect((await byOrigin('origin=in.(broadcast,reengagement)')).json()).toEqual([]);
    const channels = await app.inject({ method: 'GET', url: '/rest/v1/channel_accounts?select=*', headers: a.session });
    expect(channels.json()).toHaveLength(1);
    expect(channels.json()[0]).not.toHaveProperty('inbound_token_hash');
    expect(channels.json()[0]).not.toHaveProperty('access_token_sealed');
    // Each conversation names its channel's kind and when its window closes (none on the chat app).
    const kinds = await app.inject({ method: 'GET', url: '/rest/v1/conversations?select=channel_kind,window_closes_at', headers: a.session });
    expect(kinds.json()).toEqual([{ channel_kind: 'chat_app', window_closes_at: null }]);
    const write = await app.inject({
      method: 'POST',
      url: '/rest/v1/messages',
      headers: { ...a.session, 'content-type': 'application/json' },
      payload: { content: 'forged' },
    });
    expect(write.statusCode).toBeGreaterThanOrEqual(400);
    expect(write.statusCode).toBeLessThan(500);
  });
});
