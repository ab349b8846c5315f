import { createClient, type RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { DatabaseProxy, testAdminUrl } from '@engage/platform/testing';
import { startComposedApp } from './composed-app';

type Row = Record<string, unknown>;

// The api's LISTEN session cut by a database restart (as the service sees it: every connection cut,
// new ones refused): the websockets stay open, and changes committed after the database is back
// reach them again without the client doing anything.
describe('realtime across a database outage', () => {
  const proxy = new DatabaseProxy(testAdminUrl());
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void> = async () => undefined;
  let tenant: TestTenant;
  let conversationId: string;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp({ proxy }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'k-123');
    const sent = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: tenant.key,
      payload: { to: '201001234567', message: 'hello', organizationId: tenant.ctx.organizationId, contactName: 'Sara' },
    });
    conversationId = sent.json().conversationId;
  });
  afterAll(() => close());

  // Retried: the first statements after the outage may meet connections the pool has not yet dropped.
  async function insertMessage(content: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await runtime.db.inTenant(tenant.ctx, (tx) =>
          tx.execute(
            `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin)
             SELECT organization_id, id, contact_id, channel_account_id, 'INBOUND', 'DELIVERED', $2, 'customer' FROM conversations WHERE id = $1`,
            [conversationId, content],
          ),
        );
        return;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  async function waitFor<T>(find: () => T | undefined, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`nothing arrived within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('should deliver changes again once the database is back, on the same websocket', async () => {
    const client = createClient(await app.getUrl(), tenant.key['x-api-key'], {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    const contents: string[] = [];
    const channel = client
      .channel('outage')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (change: RealtimePostgresChangesPayload<Row>) => {
        contents.push((change.new as Row).content as string);
      });
    await new Promise<void>((resolve, reject) =>
      channel.subscribe((status, error) => (status === 'SUBSCRIBED' ? resolve() : status === 'CHANNEL_ERROR' ? reject(error) : undefined)),
    );
    try {
      await insertMessage('before');
      await waitFor(() => (contents.includes('before') ? true : undefined), 2000);
      await proxy.stop();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await proxy.start();
      // Until the listener is back a change is not delivered (nor replayed): insert until one arrives.
      let n = 0;
      const deadline = Date.now() + 15000;
      while (!contents.some((content) => content.startsWith('after')) && Date.now() < deadline) {
        await insertMessage(`after ${n++}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(contents.some((content) => content.startsWith('after'))).toBe(true);
      expect(channel.state).toBe('joined');
    } finally {
      await client.removeAllChannels();
    }
  }, 60000);
});
