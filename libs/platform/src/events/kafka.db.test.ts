import { createEvent, type DomainEvent } from '@engage/shared-kernel';
import { makeOrganization, startTestRuntime } from '../testing';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { consumeOnce, consumeOnceBatch } from './consume-once';
import { KafkaEventBus } from './kafka-event-bus';
import { OutboxRelay } from './outbox-relay';

const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const describeKafka = brokers.length > 0 ? describe : describe.skip;
if (brokers.length === 0) {
  process.stdout.write('kafka.db.test: SKIPPED: KAFKA_BROKERS is not set (start a broker with scripts/kafka-local.sh start; CI does)\n');
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

describeKafka('events through Kafka', () => {
  jest.setTimeout(90_000);
  const run = `${Date.now()}`;
  let runtime: PlatformRuntime;
  const buses: KafkaEventBus[] = [];
  const deliveries: DomainEvent[] = [];
  const batches: number[] = [];
  const source = `kafkatest${run}`;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
    await runtime.db.asSystem(async (tx) => {
      for (const table of ['kafka_test_effects', 'kafka_test_batch_effects']) {
        await tx.query(`CREATE TABLE IF NOT EXISTS ${table} (organization_id uuid NOT NULL, event_id uuid NOT NULL)`);
        const [existing] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_policies WHERE tablename = $1`, [table]);
        if (existing.n === 0) await tx.query(`SELECT enable_tenant_rls($1)`, [table]);
      }
    });
    // The worker side: its own bus with a consumer group, as a separate worker process would have.
    const worker = new KafkaEventBus({ brokers, clientId: 'kafka-test-worker', groupPrefix: `test${run}`, maxWaitTimeInMs: 100 });
    buses.push(worker);
    await worker.subscribe({
      consumer: 'effects',
      sources: [source],
      handle: async (event) => {
        deliveries.push(event);
        await consumeOnce(runtime.db, 'effects', event, (tx) =>
          tx.query('INSERT INTO kafka_test_effects (organization_id, event_id) VALUES ($1, $2)', [event.organizationId, event.id]).then(() => undefined),
        );
      },
    });
    // A consumer taking fetched batches at once (handleBatch), as the CRM timeline does.
    await worker.subscribe({
      consumer: 'batch-effects',
      sources: [source],
      handle: async () => {
        throw new Error('a subscription with handleBatch gets batches');
      },
      handleBatch: async (events) => {
        batches.push(events.length);
        await consumeOnceBatch(runtime.db, 'batch-effects', events, async (tx, fresh) => {
          for (const event of fresh)
            await tx.query('INSERT INTO kafka_test_batch_effects (organization_id, event_id) VALUES ($1, $2)', [event.organizationId, event.id]);
        });
      },
    });
    await worker.start();
  });

  afterAll(async () => {
    for (const bus of buses) await bus.stop();
    await runtime?.close();
  });

  const publisher = async () => {
    const bus = new KafkaEventBus({ brokers, clientId: 'kafka-test-relay' });
    buses.push(bus);
    await bus.start();
    return bus;
  };

  const emit = (orgId: string, count: number) =>
    runtime.db.inTenant({ organizationId: orgId, userId: null, role: 'OWNER', requestId: 'k' }, async (tx) => {
      const events = Array.from({ length: count }, (_, i) =>
        createEvent({ type: 'thing.changed', source, organizationId: orgId, aggregateId: `a${i}`, payload: { i } }),
      );
      await tx.emit(events);
      return events;
    });

  const effectsOf = (orgId: string) =>
    runtime.db.asSystem((tx) => tx.query<{ event_id: string }>('SELECT event_id FROM kafka_test_effects WHERE organization_id = $1', [orgId]));
  const batchEffectsOf = (orgId: string) =>
    runtime.db.asSystem((tx) => tx.query<{ event_id: string }>('SELECT event_id FROM kafka_test_batch_effects WHERE organization_id = $1', [orgId]));

  it('should bring an event committed with a state change to the worker handler exactly once', async () => {
    const org = await makeOrganization(runtime);
    const relay = new OutboxRelay(runtime.db, await publisher(), runtime.signal, { pollMs: 50 });
    const [event] = await emit(org.organizationId, 1);
    await relay.drainOnce();
    const effects = await eventually(
      () => effectsOf(org.organizationId),
      (rows) => rows.length > 0,
    );
    expect(effects).toEqual([{ event_id: event.id }]);
    expect(deliveries.filter((d) => d.id === event.id)).toHaveLength(1);
    expect(deliveries.find((d) => d.id === event.id)).toEqual(event);
  });

  it('should keep one effect when the relay dies between publishing and marking sent', async () => {
    const org = await makeOrganization(runtime);
    const bus = await publisher();
    const events = await emit(org.organizationId, 2);
    const dying = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50, afterPublish: async () => Promise.reject(new Error('relay died')) });
    await expect(dying.drainOnce()).rejects.toThrow('relay died');
    await new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50 }).drainOnce();
    const ids = events.map((e) => e.id);
    // Each event crossed Kafka twice; the consumer acted once per event.
    await eventually(
      async () => deliveries.filter((d) => ids.includes(d.id)).length,
      (n) => n >= 4,
    );
    expect(deliveries.filter((d) => ids.includes(d.id))).toHaveLength(4);
    const effects = await effectsOf(org.organizationId);
    expect(effects.map((e) => e.event_id).sort()).toEqual([...ids].sort());
    // The batch consumer too: once per event although each crossed twice.
    const batchEffects = await eventually(
      () => batchEffectsOf(org.organizationId),
      (rows) => rows.length >= 2,
    );
    expect(batchEffects.map((e) => e.event_id).sort()).toEqual([...ids].sort());
  });

  it('should hand a batch consumer the events of several organizations, each once', async () => {
    const [a, b] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    const events = [...(await emit(a.organizationId, 4)), ...(await emit(b.organizationId, 3))];
    const before = batches.length;
    await new OutboxRelay(runtime.db, await publisher(), runtime.signal, { pollMs: 50 }).drainOnce();
    const read = async () => [...(await batchEffectsOf(a.organizationId)), ...(await batchEffectsOf(b.organizationId))];
    const effects = await eventually(read, (rows) => rows.length >= 7);
    expect(effects.map((e) => e.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    // Through handleBatch (handle throws for this consumer), in at most as many calls as events.
    expect(batches.length).toBeGreaterThan(before);
    expect(batches.slice(before).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(7);
  });

  it('should hold events in the outbox while Kafka is unreachable and deliver them when it returns', async () => {
    const org = await makeOrganization(runtime);
    const unreachable = new KafkaEventBus({ brokers: ['127.0.0.1:1'], clientId: 'kafka-test-down' });
    await expect(unreachable.start()).rejects.toBeDefined();
    const events = await emit(org.organizationId, 3);
    await expect(new OutboxRelay(runtime.db, unreachable, runtime.signal, { pollMs: 50 }).drainOnce()).rejects.toThrow();
    const [waiting] = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [org.organizationId]),
    );
    expect(waiting.n).toBe(3);
    expect(await effectsOf(org.organizationId)).toEqual([]);

    const relay = new OutboxRelay(runtime.db, await publisher(), runtime.signal, { pollMs: 50 });
    await relay.start();
    try {
      const effects = await eventually(
        () => effectsOf(org.organizationId),
        (rows) => rows.length >= 3,
      );
      expect(effects.map((e) => e.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    } finally {
      await relay.stop();
    }
  });
});
