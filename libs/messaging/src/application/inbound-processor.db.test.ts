import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { PlatformRuntime } from '@engage/platform';
import { inboundChannel, startInboundTestApp } from '../testing/inbound-test-app';
import { InboundProcessor } from './inbound-processor';

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
    const received = await runtime.db.asSystem((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND type = 'message.received'`, [tenant.ctx.organizationId]));
    expect(received).toEqual([{ n: 60 }]);
  });
});
