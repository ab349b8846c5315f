import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { PlatformRuntime } from '@engage/platform';
import { inboundChannel, startInboundTestApp } from '../testing/inbound-test-app';
import { InboundProcessor } from './inbound-processor';
import { InboundPurge } from './inbound-purge';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

// An api process runs no inbound worker: the test drives the processors itself.
beforeAll(async () => {
  ({ app, runtime, close } = await startInboundTestApp());
});
afterAll(() => close());

describe('inbound processor lanes', () => {
  it('should process each event exactly once when two workers run their lanes at the same time, and a failing event does not hold the others', async () => {
    const { tenant, post } = await inboundChannel(app);
    // 60 messages from 5 numbers (lanes race on the same contacts and conversations), with a
    // status callback for an unknown id in the middle: it fails and must be retried later.
    for (let i = 0; i < 60; i++) {
      expect((await post({ type: 'message', id: `lane.${i}`, from: `20100555${String(1000 + (i % 5))}`, text: `m ${i}` })).statusCode).toBe(200);
      if (i === 30) expect((await post({ type: 'status', id: 'never-sent', status: 'delivered' })).statusCode).toBe(200);
    }
    const contacts = app.get(ContactService);
    const workers = [new InboundProcessor(runtime.db, contacts, undefined, 4), new InboundProcessor(runtime.db, contacts, undefined, 4)];
    for (let pass = 0; pass < 10; pass++) {
      const done = await Promise.all(workers.map((worker) => worker.processDue(100)));
      if (done[0] + done[1] === 0) break;
    }
    const sql = (text: string) => runtime.db.inTenant(tenant.ctx, (tx) => tx.query<Record<string, unknown>>(text));
    const messages = await sql(`SELECT external_id FROM messages WHERE direction = 'INBOUND'`);
    expect(messages.map((m) => m.external_id).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `lane.${i}`).sort());
    const events = await sql(`SELECT payload->>'type' AS type, attempts, processed_at IS NOT NULL AS processed, last_error FROM inbound_events`);
    const settledMessages = events.filter((e) => e.type === 'message');
    expect(settledMessages).toHaveLength(60);
    // Claimed once each: one attempt, processed, no error (a second processing would be a duplicate).
    expect(settledMessages.every((e) => e.attempts === 1 && e.processed === true && e.last_error === null)).toBe(true);
    const [status] = events.filter((e) => e.type === 'status');
    // Failed, not lost: kept for a later retry (both workers may have tried it once).
    expect(status).toMatchObject({ processed: false, last_error: 'no message with provider id never-sent (yet)' });
    expect(status.attempts).toBeGreaterThanOrEqual(1);
    expect(await sql(`SELECT count(*)::int AS n FROM conversations`)).toEqual([{ n: 5 }]);
    const received = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND type = 'message.received'`, [tenant.ctx.organizationId]),
    );
    expect(received).toEqual([{ n: 60 }]);
  });

  it("should delete a channel's pending events with the channel, and settle an event whose channel was deleted while it was stored", async () => {
    const { tenant, id, post } = await inboundChannel(app);
    expect((await post({ type: 'message', id: 'gone.1', from: '201005559000', text: 'before the delete' })).statusCode).toBe(200);
    const system = <R>(text: string, params: unknown[] = []) => runtime.db.asSystem((tx) => tx.query<R>(text, params));
    const count = async () => (await system<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_events WHERE channel_account_id = $1`, [id]))[0].n;
    expect(await count()).toBe(1);
    // What the trigger could not see: an event committed after its channel's delete.
    await system(`DELETE FROM channel_accounts WHERE id = $1`, [id]);
    expect(await count()).toBe(0);
    const [orphan] = await system<{ id: string }>(
      `INSERT INTO inbound_events (organization_id, channel_account_id, payload) VALUES ($1, $2, $3) RETURNING id`,
      [
        tenant.ctx.organizationId,
        id,
        JSON.stringify({
          type: 'message',
          id: 'gone.2',
          from: '201005559000',
          text: 'raced the delete',
          name: null,
          media: [],
          reply_to: null,
          timestamp: null,
        }),
      ],
    );
    const processor = new InboundProcessor(runtime.db, app.get(ContactService), undefined, 4);
    while ((await processor.processDue(100)) > 0);
    const [event] = await system<Record<string, unknown>>(
      `SELECT attempts, processed_at IS NOT NULL AS processed, last_error FROM inbound_events WHERE id = $1`,
      [orphan.id],
    );
    // Settled at the first attempt, not retried for minutes; nothing was stored for it.
    expect(event).toEqual({ attempts: 1, processed: true, last_error: 'channel account deleted' });
    expect(await system(`SELECT id FROM messages WHERE external_id = 'gone.2'`)).toEqual([]);
  });
});

describe('inbound event retention', () => {
  it('should delete processed events older than the retention, and keep newer ones and every event not processed yet', async () => {
    const { organizationId, id } = await inboundChannel(app);
    const system = <R>(text: string, params: unknown[] = []) => runtime.db.asSystem((tx) => tx.query<R>(text, params));
    // The purge works from the oldest stored events: this test's are made the only ones.
    await system(`DELETE FROM inbound_events`);
    // 5,003 old processed events (more than one slice), one old event never processed, one recent processed.
    await system(
      `INSERT INTO inbound_events (organization_id, channel_account_id, payload, received_at, processed_at)
       SELECT $1, $2, jsonb_build_object('n', n), now() - interval '40 days', now() - interval '40 days' FROM generate_series(1, 5003) n`,
      [organizationId, id],
    );
    await system(
      `INSERT INTO inbound_events (organization_id, channel_account_id, payload, received_at, processed_at) VALUES
         ($1, $2, '{"kept": "pending"}', now() - interval '40 days', NULL),
         ($1, $2, '{"kept": "recent"}', now() - interval '29 days', now() - interval '29 days')`,
      [organizationId, id],
    );
    const purge = new InboundPurge(runtime.db, { retentionDays: 30 });
    expect(await purge.purge()).toBe(5003);
    const left = await system<{ kept: string }>(`SELECT payload->>'kept' AS kept FROM inbound_events WHERE channel_account_id = $1 ORDER BY id`, [id]);
    expect(left).toEqual([{ kept: 'pending' }, { kept: 'recent' }]);
    expect(await purge.purge()).toBe(0);
  });
});
