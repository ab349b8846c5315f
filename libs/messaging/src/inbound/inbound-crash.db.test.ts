import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import { createHttpApp, loadConfig, type PlatformRuntime, startPlatform } from '@engage/platform';
import { createTestDatabase, dropTestDatabase, testAdminUrl, testRootModule } from '@engage/platform/testing';
import { messagingMigrations, messagingQueues } from '../index';
import { MessagingModule } from '../messaging.module';
import { waitFor } from '../testing/wait-for';

const migrations = [...identityMigrations, ...crmMigrations, ...messagingMigrations];
// Enough that the crash, taken once 20 are processed, lands mid-way: the worker takes 100 a pass.
const MESSAGES = 600;
const RETRIED = MESSAGES / 10;

// A worker dies mid-processing (its database sessions are killed while transactions are open and
// it cannot reconnect), then a new worker starts: every acknowledged message is stored exactly once.
describe('inbound processing across a worker crash', () => {
  let databaseUrl: string;
  let admin: Client;
  let api: { runtime: PlatformRuntime; app: NestFastifyApplication };
  const dbName = () => new URL(databaseUrl).pathname.slice(1);
  const dataDirs: string[] = [];
  const dataDir = (role: string) => {
    dataDirs.push(mkdtempSync(join(tmpdir(), `engage-${role}-`)));
    return dataDirs[dataDirs.length - 1];
  };
  const config = (appName: string, role: string) =>
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}application_name=${appName}`,
      DATA_DIR: dataDir(role),
      INBOUND_POLL_MS: '20',
      DATABASE_POOL_SIZE: '4',
    });
  const startWorker = async (name: string): Promise<{ runtime: PlatformRuntime; context: INestApplicationContext }> => {
    const runtime = await startPlatform(config(name, 'worker'), { role: 'worker', migrations });
    const context = await NestFactory.createApplicationContext(testRootModule(runtime, [MessagingModule], [], { queues: messagingQueues }), { logger: false });
    return { runtime, context };
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(testAdminUrl());
    admin = new Client({ connectionString: testAdminUrl() });
    await admin.connect();
    const runtime = await startPlatform(config('inbound-api', 'api'), { role: 'api', migrations });
    api = { runtime, app: await createHttpApp(runtime, testRootModule(runtime, [MessagingModule])) };
  });
  afterAll(async () => {
    await api.app.close();
    await api.runtime.close();
    await admin.query(`ALTER DATABASE ${dbName()} WITH ALLOW_CONNECTIONS true`);
    await admin.end();
    await dropTestDatabase(testAdminUrl(), databaseUrl);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('should store every acknowledged message exactly once', async () => {
    const tenant = await createTestTenant(api.app);
    const channel = (
      await api.app.inject({
        method: 'POST',
        url: '/functions/v1/messaging/channel-accounts',
        headers: tenant.key,
        payload: { kind: 'chat_app', name: 'Line' },
      })
    ).json();
    const acknowledged = new Set<string>();
    for (let i = 0; i < MESSAGES; i++) {
      const id = `wamid.${i}`;
      const payload = { type: 'message', id, from: `20100123${String(4000 + (i % 7))}`, text: `message ${i}` };
      const res = await api.app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${channel.channel_account.id}`,
        headers: { 'x-channel-token': channel.inbound_token },
        payload,
      });
      expect(res.statusCode).toBe(200);
      acknowledged.add(id);
      // Provider retries of some messages.
      if (i % 10 === 0)
        expect(
          (
            await api.app.inject({
              method: 'POST',
              url: `/functions/v1/chat-lite-webhook/${channel.channel_account.id}`,
              headers: { 'x-channel-token': channel.inbound_token },
              payload,
            })
          ).statusCode,
        ).toBe(200);
    }
    const processed = async () =>
      Number((await api.runtime.db.systemQuery<{ n: string }>('SELECT count(*) AS n FROM inbound_events WHERE processed_at IS NOT NULL'))[0].n);

    const first = await startWorker('inbound-worker-1');
    await waitFor(async () => (await processed()) >= 20);
    // The crash: no new sessions, and the open ones (mid-transaction) are killed.
    await admin.query(`ALTER DATABASE ${dbName()} WITH ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'inbound-worker-1'`, [dbName()]);
    await first.context.close();
    await first.runtime.close().catch(() => undefined);
    await admin.query(`ALTER DATABASE ${dbName()} WITH ALLOW_CONNECTIONS true`);
    const atCrash = await processed();
    expect(atCrash).toBeLessThan(MESSAGES + RETRIED);

    const second = await startWorker('inbound-worker-2');
    try {
      await waitFor(async () => (await processed()) === MESSAGES + RETRIED, 30_000);
    } finally {
      await second.context.close();
      await second.runtime.close();
    }
    const stored = await api.runtime.db.inTenant(tenant.ctx, (tx) =>
      tx.query<{ external_id: string; n: number }>(`SELECT external_id, count(*)::int AS n FROM messages WHERE direction = 'INBOUND' GROUP BY external_id`),
    );
    expect(stored).toHaveLength(MESSAGES);
    expect(new Set(stored.map((row) => row.external_id))).toEqual(acknowledged);
    expect(stored.every((row) => row.n === 1)).toBe(true);
    const counts = await api.runtime.db.inTenant(tenant.ctx, (tx) =>
      tx.query(
        `SELECT (SELECT count(*)::int FROM contacts) AS contacts, (SELECT count(*)::int FROM conversations) AS conversations, (SELECT sum(unread_count)::int FROM conversations) AS unread`,
      ),
    );
    expect(counts).toEqual([{ contacts: 7, conversations: 7, unread: MESSAGES }]);
    const received = await api.runtime.db.systemQuery<{ n: string }>(
      `SELECT count(*) AS n FROM outbox WHERE organization_id = $1 AND type = 'message.received'`,
      [tenant.ctx.organizationId],
    );
    expect(Number(received[0].n)).toBe(MESSAGES);
  });
});
