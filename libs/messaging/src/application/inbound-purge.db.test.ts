import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { inboundChannel, startInboundTestApp } from '../testing/inbound-test-app';
import { InboundPurge } from './inbound-purge';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, runtime, close } = await startInboundTestApp());
});
afterAll(() => close());

describe('inbound event retention', () => {
  it('should delete processed events older than the retention, and keep newer ones and every event not processed yet', async () => {
    const { organizationId, id } = await inboundChannel(app);
    const system = <R>(text: string, params: unknown[] = []) => runtime.db.asSystem((tx) => tx.query<R>(text, params));
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
    const purge = new InboundPurge(runtime.db, { retentionDays: 30, everyMs: 3_600_000, enabled: false });
    expect(await purge.purge()).toBe(5003);
    const left = await system<{ kept: string }>(`SELECT payload->>'kept' AS kept FROM inbound_events WHERE channel_account_id = $1 ORDER BY id`, [id]);
    expect(left).toEqual([{ kept: 'pending' }, { kept: 'recent' }]);
    expect(await purge.purge()).toBe(0);
  });
});
