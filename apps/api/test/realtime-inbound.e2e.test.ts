import { createClient, type RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TokenService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startComposedApp } from './composed-app';

type Row = Record<string, unknown>;

// The console's path end to end: a customer's message posted to the chat-app webhook, stored and
// processed by the inbound worker (api and worker in one process, as npm start runs them), reaches a
// signed-in member's supabase-js subscription; and the conversation's change with it.
describe('an inbound message on /realtime/v1', () => {
  let app: NestFastifyApplication;
  let close: () => Promise<void>;
  let tenant: TestTenant;
  let channel: { id: string; token: string };

  beforeAll(async () => {
    ({ app, close } = await startComposedApp({ role: 'all' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTestTenant(app);
    const created = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: tenant.key,
      payload: { kind: 'chat_app', name: 'Line' },
    });
    channel = { id: created.json().channel_account.id, token: created.json().inbound_token };
  });
  afterAll(() => close());

  it('should show 50 inbound webhook messages and their conversation live, each within 2 s (p50 and p95 printed)', async () => {
    const client = createClient(await app.getUrl(), await app.get(TokenService).issueAnonKey(), {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    expect((await client.auth.signInWithPassword({ email: tenant.email, password: tenant.password })).error).toBeNull();
    const arrived = new Map<string, number>();
    const conversations: Row[] = [];
    const live = client
      .channel('inbox')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (change: RealtimePostgresChangesPayload<Row>) => {
        arrived.set((change.new as Row).content as string, performance.now());
      })
      .on('postgres_changes', { event: '*', schema: 'public', table: 'conversations' }, (change: RealtimePostgresChangesPayload<Row>) => {
        conversations.push(change.new as Row);
      });
    await new Promise<void>((resolve, reject) =>
      live.subscribe((status, error) => (status === 'SUBSCRIBED' ? resolve() : status === 'CHANNEL_ERROR' ? reject(error) : undefined)),
    );
    try {
      const latencies: number[] = [];
      for (let n = 0; n < 50; n++) {
        const text = `inbound ${n}`;
        const started = performance.now();
        const posted = await app.inject({
          method: 'POST',
          url: `/functions/v1/chat-lite-webhook/${channel.id}`,
          headers: { 'x-channel-token': channel.token },
          payload: { type: 'message', id: `live.${n}`, from: '201005550123', text },
        });
        expect(posted.statusCode).toBe(200);
        const deadline = started + 2000;
        while (!arrived.has(text)) {
          if (performance.now() > deadline) throw new Error(`${text} did not arrive within 2 s`);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        latencies.push((arrived.get(text) as number) - started);
      }
      latencies.sort((x, y) => x - y);
      const at = (q: number) => latencies[Math.ceil(q * latencies.length) - 1];
      process.stdout.write(
        `inbound webhook to supabase-js receipt over 50 messages: p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${at(1).toFixed(1)} ms\n`,
      );
      // The conversation the first message opened, with the customer's last message time.
      expect(conversations.some((conversation) => conversation.status === 'OPEN' && conversation.last_message_at !== null)).toBe(true);
    } finally {
      await client.removeAllChannels();
    }
  }, 60000);
});
