import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert, DatabaseProxy, type HttpsReceiver, startHttpsReceiver, testAdminUrl } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { CONTACT_CREATED } from '@engage/crm';
import { createTestTenant, startWebhooksApp } from '../testing/webhooks-test-app';
import { ConfigurationService } from './configuration.service';
import { DeliveryRunner } from './delivery-runner';

// The worker (api + worker in one process, one slot per endpoint) with its database behind a relay
// a test cuts while an attempt is on the wire: the attempt's outcome cannot be recorded then.
describe('delivery worker', () => {
  const cert = createSelfSignedCert();
  const proxy = new DatabaseProxy(testAdminUrl());
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let receiver: HttpsReceiver;
  let backAt = 0;

  beforeAll(async () => {
    receiver = await startHttpsReceiver(cert);
    ({ app, runtime, close } = await startWebhooksApp({
      role: 'all',
      proxy,
      env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: cert.certPath, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' },
    }));
  });
  afterAll(async () => {
    await receiver.close();
    await close();
  });

  const sinceBack = () => Date.now() - backAt;
  const rows = (ctx: RequestContext, ids: string[]) =>
    runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ id: string; status: string; attempts: number; locked_until: Date | null }>(
        'SELECT id, status, attempts, locked_until FROM webhook_deliveries WHERE id = ANY($1::uuid[]) ORDER BY created_at',
        [ids],
      ),
    );

  it('should give its endpoint slot back and finish it soon after the database is back, sent once', async () => {
    const { ctx } = await createTestTenant(app);
    const hook = await runtime.db.inTenant(ctx, (tx) =>
      app.get(ConfigurationService).createIn(tx, ctx, { name: 'outage', url: `${receiver.url}/outage`, events: [CONTACT_CREATED.name] }),
    );
    // The first attempt cuts the database before it is answered (200), and it comes back 1 s later.
    receiver.behave((_request, res) => {
      receiver.behave(() => ({ status: 200, body: 'ok' }));
      void proxy.stop().then(() => {
        res.writeHead(200).end('ok');
        setTimeout(() => {
          backAt = Date.now();
          void proxy.start();
        }, 1000);
      });
      return undefined;
    });
    const ids = await runtime.db.inTenant(ctx, async (tx) => {
      const queued: string[] = [];
      for (const n of [1, 2, 3]) {
        const body = JSON.stringify({ event: CONTACT_CREATED.name, timestamp: new Date().toISOString(), data: { n } });
        const [row] = await tx.query<{ id: string }>(
          `INSERT INTO webhook_deliveries (organization_id, webhook_id, event, body, next_attempt_at, created_at)
           VALUES (app_org_id(), $1, $2, $3, now(), now() + make_interval(secs => $4))
           RETURNING id`,
          [hook.id, CONTACT_CREATED.name, body, n],
        );
        queued.push(row.id);
      }
      return queued;
    });

    // With one slot the endpoint gets the next two only once the first attempt's slot is given back:
    // before, its lease held it for the time-out + 60 s.
    await receiver.waitFor(3);
    expect(backAt).toBeGreaterThan(0);
    expect(sinceBack()).toBeLessThan(8000);
    const received = receiver.received.map((request) => request.headers['webhook-id']);
    expect(received).toEqual(ids);
    const deliveries = await waitUntil(
      () => rows(ctx, ids),
      (found) => found.every((row) => row.status === 'success'),
    );
    expect(deliveries.map((row) => [row.status, row.attempts, row.locked_until])).toEqual([
      ['success', 1, null],
      ['success', 1, null],
      ['success', 1, null],
    ]);
    const logs = await runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ delivery_id: string; attempt: number; status: string }>('SELECT delivery_id, attempt, status FROM webhook_logs WHERE webhook_id = $1', [
        hook.id,
      ]),
    );
    expect(logs.map((log) => log.delivery_id).sort()).toEqual([...ids].sort());
    expect(receiver.received).toHaveLength(3);
  }, 30_000);

  it("should send a busy endpoint's deliveries one after another without a claim round each, oldest first", async () => {
    const { ctx } = await createTestTenant(app);
    const hook = await runtime.db.inTenant(ctx, (tx) =>
      app.get(ConfigurationService).createIn(tx, ctx, { name: 'busy', url: `${receiver.url}/busy`, events: [CONTACT_CREATED.name] }),
    );
    const runner = app.get(DeliveryRunner);
    const claimed: number[] = [];
    const claim = runner.claim.bind(runner);
    const spy = jest.spyOn(runner, 'claim').mockImplementation(async (limit, perEndpoint) => {
      const jobs = await claim(limit, perEndpoint);
      claimed.push(jobs.filter((job) => job.webhook_id === hook.id).length);
      return jobs;
    });
    try {
      const ids = await runtime.db.inTenant(ctx, async (tx) => {
        const rows = await tx.query<{ id: string }>(
          `INSERT INTO webhook_deliveries (organization_id, webhook_id, event, body, next_attempt_at)
           SELECT app_org_id(), $1, $2, json_build_object('n', n)::text, now() + n * interval '1 microsecond' FROM generate_series(1, 30) n
           RETURNING id`,
          [hook.id, CONTACT_CREATED.name],
        );
        return rows.map((row) => row.id);
      });
      await waitUntil(
        async () => receiver.received.filter((request) => request.path === '/busy').length,
        (n) => n >= 30,
      );
      // One slot (WEBHOOK_CONCURRENCY_PER_ENDPOINT=1): each success hands it to the next delivery in
      // its record's transaction; before, each of the 30 took a claim round of its own.
      expect(receiver.received.filter((request) => request.path === '/busy').map((request) => request.headers['webhook-id'])).toEqual(ids);
      expect(claimed.filter((n) => n > 0).length).toBeLessThanOrEqual(2);
    } finally {
      spy.mockRestore();
    }
  }, 30_000);
});

async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
