import pg from 'pg';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

// In the combined process (api + worker, one pool) the gated requests of all organizations never
// take the last 2 connections: with every gated slot held by slow reads, an inbound message is
// still acknowledged and the worker still processes it.
describe('fair sharing: the worker keeps connections the gated requests cannot take', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // A pool of 4, of which gated requests get 2 (DATABASE_POOL_SIZE - 2) however many one
    // organization may run: the all-organizations cap, not the organization's, is under test.
    const env = { DATABASE_POOL_SIZE: '4', ORG_MAX_CONCURRENT_REQUESTS: '4', ORG_MAX_QUEUED_REQUESTS: '4', ORG_QUEUE_WAIT_MS: '20000' };
    ({ app, runtime, close } = await startComposedApp({ role: 'all', env: { ...env, INBOUND_POLL_MS: '50' } }));
  });
  afterAll(() => close());

  it('should acknowledge and process inbound messages while gated reads hold every slot', async () => {
    const busy = await createTestTenant(app);
    const calm = await createTestTenant(app);
    const channelAccounts = '/functions/v1/messaging/channel-accounts';
    const created = await app.inject({ method: 'POST', url: channelAccounts, headers: calm.key, payload: { kind: 'chat_app', name: 'In' } });
    expect(created.statusCode).toBe(201);
    const { channel_account: channel, inbound_token: token } = created.json<{ channel_account: { id: string }; inbound_token: string }>();
    // The lock and the checks use connections of their own, outside the pool under test.
    const outside = new pg.Client({ connectionString: runtime.config.DATABASE_URL });
    await outside.connect();
    try {
      await outside.query('BEGIN');
      await outside.query('LOCK TABLE notes IN ACCESS EXCLUSIVE MODE');
      const slow = [1, 2, 3, 4].map(() => app.inject({ method: 'GET', url: '/rest/v1/notes?select=id', headers: busy.session }));
      // Two reads hold a pooled connection each, waiting for the lock; two wait at the gate.
      const waiting = async () =>
        (await outside.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'notes'::regclass`)).rows[0].n;
      for (let tries = 0; tries < 200 && (await waiting()) < 2; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await waiting()).toBe(2);

      const inbound = await app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${channel.id}`,
        headers: { 'x-channel-token': token },
        payload: { type: 'message', id: 'fair-worker-1', from: '+201005550777', text: 'still processed' },
      });
      expect(inbound.statusCode).toBe(200);
      const stored = `SELECT count(*)::int AS n FROM messages WHERE channel_account_id = $1 AND content = 'still processed'`;
      const processed = async () => (await outside.query<{ n: number }>(stored, [channel.id])).rows[0].n;
      for (let tries = 0; tries < 400 && (await processed()) === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await processed()).toBe(1);
      // Still two slow reads in the database and none done: the message went through beside them.
      expect(await waiting()).toBe(2);

      await outside.query('COMMIT');
      for (const response of await Promise.all(slow)) expect(response.statusCode).toBe(200);
    } finally {
      await outside.end();
    }
  });
});
