import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EventSubscriptions, type PlatformRuntime } from '@engage/platform';
import { installTestDns } from '@engage/platform/testing';
import { createEvent, type RequestContext } from '@engage/shared-kernel';
import { createTestTenant, startWebhooksApp } from '../testing/webhooks-test-app';
import { ConfigurationService } from './configuration.service';
import { DELIVERIES_CONSUMER } from './webhooks.subscriptions';
import { CONTACT_CREATED, CONTACT_UPDATED, DEAL_CREATED } from '@engage/crm';

// The deliveries consumer fed a relay batch at once (handleBatch), as the in-process bus does.
describe('webhook deliveries queued from a batch of events', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  // hooks.example.com resolves (to a public address) when the configurations are saved: TEST_DNS.
  let restoreDns: () => void;
  beforeAll(async () => {
    restoreDns = installTestDns();
    ({ app, runtime, close } = await startWebhooksApp({ role: 'api' }));
  });
  afterAll(async () => {
    await close();
    restoreDns();
  });

  const org = async () => ({ ...(await createTestTenant(app)).ctx, role: 'OWNER' as const });
  const configure = (ctx: RequestContext, name: string, events: string[]) =>
    runtime.db.inTenant(ctx, (tx) => app.get(ConfigurationService).createIn(tx, ctx, { name, url: `https://hooks.example.com/${name}`, events }));
  const queued = (ctx: RequestContext) =>
    runtime.db.inTenant(ctx, (tx) =>
      tx.query<{ webhook_id: string; event: string; body: string }>(
        'SELECT webhook_id, event, body FROM webhook_deliveries ORDER BY next_attempt_at, webhook_id',
      ),
    );

  it('should queue the same deliveries as one event at a time: per subscribed configuration, once per event, in order, inside each organization', async () => {
    const [a, b] = [await org(), await org()];
    const contacts = await configure(a, 'contacts', [CONTACT_CREATED.name, CONTACT_UPDATED.name]);
    const all = await configure(a, 'all', [CONTACT_CREATED.name, DEAL_CREATED.name]);
    const other = await configure(b, 'other', [CONTACT_CREATED.name]);
    const event = (ctx: RequestContext, type: string, n: number) =>
      createEvent({
        type,
        source: CONTACT_CREATED.source,
        organizationId: ctx.organizationId,
        aggregateId: `c${n}`,
        payload: { contact: { id: `c${n}` }, deal: { id: `d${n}` }, actor_id: null },
      });
    const [a1, a2, b1, a3, notAKind] = [
      event(a, CONTACT_CREATED.name, 1),
      event(a, CONTACT_UPDATED.name, 2),
      event(b, CONTACT_CREATED.name, 3),
      event(a, DEAL_CREATED.name, 4),
      event(a, 'nobody.declared', 5),
    ];
    const handler = app
      .get(EventSubscriptions)
      .all()
      .find((s) => s.consumer === DELIVERIES_CONSUMER)!;
    await handler.handleBatch!([a1, a2, b1, a1, notAKind, a3]);
    await handler.handleBatch!([a2, b1]); // delivered again: nothing new
    const mine = await queued(a);
    // Due in the events' order (the first event's two configurations by id).
    expect(mine.map((d) => [d.event, d.webhook_id])).toEqual([
      ...[contacts.id, all.id].sort().map((id) => [CONTACT_CREATED.name, id]),
      [CONTACT_UPDATED.name, contacts.id],
      [DEAL_CREATED.name, all.id],
    ]);
    expect(JSON.parse(mine[0].body)).toEqual({ event: CONTACT_CREATED.name, timestamp: a1.occurredAt, data: expect.objectContaining({ id: 'c1' }) });
    expect((await queued(b)).map((d) => d.webhook_id)).toEqual([other.id]);
  });
});
