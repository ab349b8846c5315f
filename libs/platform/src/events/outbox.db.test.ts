import { createEvent, type DomainEvent } from '@engage/shared-kernel';
import { makeOrganization, startTestRuntime } from '../testing';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { consumeIdempotentBatch, consumeOnce, consumeOnceBatch } from './consume-once';
import { InProcessEventBus } from './in-process-event-bus';
import { KafkaEventBus } from './kafka-event-bus';
import { OutboxRelay } from './outbox-relay';
import { MARK_PUBLISHED } from './outbox.sql';

const source = `outbox-test-${Date.now()}`;

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

// Where the test consumers record what they did, per organization (row-level security on).
const createEffectsTable = (runtime: PlatformRuntime) =>
  runtime.db.asSystem(async (tx) => {
    await tx.query(`CREATE TABLE IF NOT EXISTS outbox_test_effects (organization_id uuid NOT NULL, event_id uuid NOT NULL, consumer text NOT NULL)`);
    const [existing] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_policies WHERE tablename = 'outbox_test_effects'`);
    if (existing.n === 0) await tx.query(`SELECT enable_tenant_rls('outbox_test_effects')`);
  });

describe('outbox and relay', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
    await createEffectsTable(runtime);
  });
  afterAll(() => runtime.close());

  const effectsOf = (orgId: string) =>
    runtime.db.asSystem((tx) =>
      tx.query<{ event_id: string; consumer: string }>('SELECT event_id, consumer FROM outbox_test_effects WHERE organization_id = $1', [orgId]),
    );

  const recordingConsumer = (consumer: string) => ({
    consumer,
    sources: [source],
    handle: (event: DomainEvent) =>
      consumeOnce(runtime.db, consumer, event, async (tx) => {
        await tx.query('INSERT INTO outbox_test_effects (organization_id, event_id, consumer) VALUES ($1, $2, $3)', [event.organizationId, event.id, consumer]);
      }).then(() => undefined),
  });

  const emitIn = (orgId: string, count = 1, fail = false) =>
    runtime.db.inTenant({ organizationId: orgId, userId: null, role: 'OWNER', requestId: 'r' }, async (tx) => {
      const events = Array.from({ length: count }, (_, i) =>
        createEvent({ type: 'thing.changed', source, organizationId: orgId, aggregateId: `a${i}`, payload: { i } }),
      );
      await tx.emit(events);
      if (fail) throw new Error('the state change failed');
      return events;
    });

  it('should carry the cause a transaction was opened with on the events it emits, through the relay', async () => {
    const delivered: DomainEvent[] = [];
    const bus = new InProcessEventBus();
    await bus.subscribe({ consumer: 'cause-reader', sources: [source], handle: async (event) => void delivered.push(event) });
    const relay = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50 });
    const org = await makeOrganization(runtime);
    const cause = { rule_id: '00000000-0000-4000-8000-000000000001', run_id: '00000000-0000-4000-8000-000000000002', depth: 2 };
    const own = { ...cause, depth: 1 };
    const ctx = { organizationId: org.organizationId, userId: null, role: 'SYSTEM' as const, requestId: 'r' };
    const event = (aggregateId: string) => createEvent({ type: 'thing.changed', source, organizationId: org.organizationId, aggregateId, payload: {} });
    await runtime.db.inTenant(ctx, (tx) => tx.emit([event('caused'), { ...event('own-cause'), cause: own }]), { cause });
    await runtime.db.inTenant(ctx, (tx) => tx.emit([event('plain')]));
    await relay.start();
    try {
      const mine = await eventually(
        async () => delivered.filter((e) => e.organizationId === org.organizationId),
        (events) => events.length === 3,
      );
      const byAggregate = new Map(mine.map((e) => [e.aggregateId, e.cause]));
      expect(byAggregate.get('caused')).toEqual(cause);
      expect(byAggregate.get('own-cause')).toEqual(own);
      expect(byAggregate.get('plain')).toBeUndefined();
    } finally {
      await relay.stop();
    }
  });

  it('should deliver an event committed with a state change exactly once', async () => {
    const bus = new InProcessEventBus();
    await bus.subscribe(recordingConsumer('c1'));
    const relay = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50 });
    const org = await makeOrganization(runtime);
    await relay.start();
    try {
      const [event] = await emitIn(org.organizationId);
      const effects = await eventually(
        () => effectsOf(org.organizationId),
        (rows) => rows.length > 0,
      );
      expect(effects).toEqual([{ event_id: event.id, consumer: 'c1' }]);
      // Delivering the same event again (a redelivery) changes nothing.
      await bus.publish([event]);
      expect(await effectsOf(org.organizationId)).toHaveLength(1);
    } finally {
      await relay.stop();
    }
  });

  it('should keep a published row on its own page, so marking it logs only the changed bytes', async () => {
    const org = await makeOrganization(runtime);
    const payload = { text: 'x'.repeat(700) }; // the size of a message.received payload
    const events = Array.from({ length: 40 }, () => createEvent({ organizationId: org.organizationId, source, type: 'test.sized', aggregateId: 'a', payload }));
    await runtime.db.inTenant(org, (tx) => tx.emit(events));
    const pages = () =>
      runtime.db.asSystem((tx) =>
        tx.query<{ seq: string; page: string }>(`SELECT seq, (ctid::text::point)[0]::int AS page FROM outbox WHERE organization_id = $1 ORDER BY seq`, [
          org.organizationId,
        ]),
      );
    const before = await pages();
    expect(before).toHaveLength(40);
    await runtime.db.asSystem((tx) => tx.query(MARK_PUBLISHED, [before.map((r) => r.seq)]));
    expect(await pages()).toEqual(before);
  });

  it('should hand a batch consumer each event once, one transaction per organization, and undo a failed batch whole', async () => {
    const calls: Array<{ org: string; ids: string[] }> = [];
    let failFor: string | undefined;
    const batchConsumer = (consumer: string) => ({
      consumer,
      sources: [source],
      handle: async () => {
        throw new Error('the in-process bus hands batches to handleBatch');
      },
      handleBatch: async (events: DomainEvent[]) => {
        await consumeOnceBatch(runtime.db, consumer, events, async (tx, fresh) => {
          calls.push({ org: fresh[0].organizationId, ids: fresh.map((e) => e.id) });
          for (const event of fresh)
            await tx.query('INSERT INTO outbox_test_effects (organization_id, event_id, consumer) VALUES ($1, $2, $3)', [
              event.organizationId,
              event.id,
              consumer,
            ]);
          if (fresh[0].organizationId === failFor) throw new Error('effect failed');
        });
      },
    });
    const bus = new InProcessEventBus();
    await bus.subscribe(batchConsumer('b1'));
    const [a, b] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    const fromA = await emitIn(a.organizationId, 3);
    const fromB = await emitIn(b.organizationId, 2);
    // Interleaved, with a repeat inside the batch and one event consumed before.
    await bus.publish([fromA[0]]);
    calls.length = 0;
    await bus.publish([fromA[0], fromB[0], fromA[1], fromA[1], fromB[1], fromA[2]]);
    expect(calls).toEqual([
      { org: a.organizationId, ids: [fromA[1].id, fromA[2].id] },
      { org: b.organizationId, ids: [fromB[0].id, fromB[1].id] },
    ]);
    expect((await effectsOf(a.organizationId)).map((e) => e.event_id).sort()).toEqual(fromA.map((e) => e.id).sort());
    // A failing effect leaves its organization's events unconsumed: a redelivery does them.
    const [c] = [await makeOrganization(runtime)];
    const fromC = await emitIn(c.organizationId, 2);
    failFor = c.organizationId;
    await expect(bus.publish(fromC)).rejects.toThrow('effect failed');
    expect(await effectsOf(c.organizationId)).toEqual([]);
    failFor = undefined;
    await bus.publish(fromC);
    expect((await effectsOf(c.organizationId)).map((e) => e.event_id).sort()).toEqual(fromC.map((e) => e.id).sort());
  });

  it('should run an idempotent effect per organization inside its tenant, in order, a repeat once, with no processed_events row', async () => {
    const [a, b] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    const fromA = await emitIn(a.organizationId, 2);
    const fromB = await emitIn(b.organizationId, 1);
    const seen: Array<{ org: string; visible: string[]; ids: string[] }> = [];
    await consumeIdempotentBatch(runtime.db, [fromA[0], fromB[0], fromA[0], fromA[1]], async (tx, events) => {
      // Inside the tenant: the effects table shows only this organization's rows.
      for (const event of events)
        await tx.query('INSERT INTO outbox_test_effects (organization_id, event_id, consumer) VALUES ($1, $2, $3)', [event.organizationId, event.id, 'idem']);
      const visible = await tx.query<{ organization_id: string }>(`SELECT DISTINCT organization_id FROM outbox_test_effects WHERE consumer = 'idem'`);
      seen.push({ org: events[0].organizationId, visible: visible.map((r) => r.organization_id), ids: events.map((e) => e.id) });
    });
    expect(seen).toEqual([
      { org: a.organizationId, visible: [a.organizationId], ids: [fromA[0].id, fromA[1].id] },
      { org: b.organizationId, visible: [b.organizationId], ids: [fromB[0].id] },
    ]);
    const marks = await runtime.db.asSystem((tx) =>
      tx.query('SELECT 1 FROM processed_events WHERE event_id = ANY($1::uuid[])', [[...fromA, ...fromB].map((e) => e.id)]),
    );
    expect(marks).toEqual([]);
  });

  it('should publish nothing from a rolled-back transaction', async () => {
    const published: DomainEvent[] = [];
    const bus = new InProcessEventBus();
    await bus.subscribe({ consumer: 'spy', sources: [source], handle: async (e) => void published.push(e) });
    const relay = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50 });
    const org = await makeOrganization(runtime);
    await expect(emitIn(org.organizationId, 2, true)).rejects.toThrow('the state change failed');
    await relay.drainOnce();
    expect(published.filter((e) => e.organizationId === org.organizationId)).toEqual([]);
    const [row] = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1', [org.organizationId]),
    );
    expect(row.n).toBe(0);
  });

  it('should republish after the relay dies between publishing and marking sent, and the consumer acts once', async () => {
    const bus = new InProcessEventBus();
    await bus.subscribe(recordingConsumer('c2'));
    const org = await makeOrganization(runtime);
    const events = await emitIn(org.organizationId, 3);
    const dying = new OutboxRelay(runtime.db, bus, runtime.signal, {
      pollMs: 50,
      afterPublish: async () => {
        throw new Error('relay process died');
      },
    });
    await expect(dying.drainOnce()).rejects.toThrow('relay process died');
    expect((await effectsOf(org.organizationId)).length).toBe(3);
    const [pending] = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [org.organizationId]),
    );
    expect(pending.n).toBe(3);

    const healthy = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50 });
    await healthy.drainOnce();
    const effects = await effectsOf(org.organizationId);
    expect(effects.map((e) => e.event_id).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('should keep events in the outbox while the broker is unreachable, and deliver them when it answers', async () => {
    const org = await makeOrganization(runtime);
    const down = new KafkaEventBus({ brokers: ['127.0.0.1:1'], clientId: 'outbox-test' });
    await expect(down.start()).rejects.toBeDefined();
    const relay = new OutboxRelay(runtime.db, down, runtime.signal, { pollMs: 50 });
    const events = await emitIn(org.organizationId, 2);
    await expect(relay.drainOnce()).rejects.toThrow();
    const [row] = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number; attempts: number; last_error: string }>(
        'SELECT count(*)::int AS n, min(attempts) AS attempts, min(last_error) AS last_error FROM outbox WHERE organization_id = $1 AND published_at IS NULL',
        [org.organizationId],
      ),
    );
    expect(row.n).toBe(2);
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.last_error).toMatch(/not connected/);

    const up = new InProcessEventBus();
    await up.subscribe(recordingConsumer('c3'));
    await new OutboxRelay(runtime.db, up, runtime.signal, { pollMs: 50 }).drainOnce();
    expect((await effectsOf(org.organizationId)).map((e) => e.event_id).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('should LISTEN again after its connection is killed, so another process wakes it without polling', async () => {
    const org = await makeOrganization(runtime);
    const bus = new InProcessEventBus();
    const seen: string[] = [];
    await bus.subscribe({ consumer: 'relisten', sources: [source], handle: async (event) => void seen.push(event.id) });
    // Polling every minute: only a notification can deliver within the test's wait.
    const relay = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 60_000 });
    await relay.start();
    try {
      const listeners = () =>
        runtime.dataSource.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN outbox_written'`) as Promise<
          { pid: number }[]
        >;
      const [before] = await listeners();
      expect(await runtime.dataSource.query('SELECT pg_terminate_backend($1) AS ok', [before.pid])).toEqual([{ ok: true }]);
      const after = await eventually(listeners, (rows) => rows.length === 1 && rows[0].pid !== before.pid);
      expect(after).toHaveLength(1);
      expect(after[0].pid).not.toBe(before.pid);
      // The server shows the LISTEN a moment before the relay has its answer.
      expect(
        await eventually(
          async () => relay.listening,
          (listening) => listening,
        ),
      ).toBe(true);
      // As another process would: insert and notify without this process's in-memory signal.
      const event = createEvent({ type: 'relisten.tested', source, organizationId: org.organizationId, aggregateId: org.organizationId, payload: {} });
      await runtime.dataSource.query(
        `INSERT INTO outbox (id, organization_id, source, type, aggregate_id, payload, schema_version, occurred_at) VALUES ($1, $2, $3, $4, $5, '{}', 1, now())`,
        [event.id, event.organizationId, event.source, event.type, event.aggregateId],
      );
      await runtime.dataSource.query(`SELECT pg_notify('outbox_written', '')`);
      expect(
        await eventually(
          async () => seen,
          (ids) => ids.includes(event.id),
        ),
      ).toContain(event.id);
    } finally {
      await relay.stop();
    }
  });

  it('should let only one relay publish at a time', async () => {
    const org = await makeOrganization(runtime);
    await emitIn(org.organizationId, 5);
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowBus = new InProcessEventBus();
    await slowBus.subscribe({
      consumer: 'slow',
      sources: [source],
      handle: async (e) => {
        seen.push(e.id);
        await gate;
      },
    });
    const first = new OutboxRelay(runtime.db, slowBus, runtime.signal, { pollMs: 50 }).drainOnce();
    await eventually(
      async () => seen.length,
      (n) => n > 0,
    );
    const second = await new OutboxRelay(runtime.db, new InProcessEventBus(), runtime.signal, { pollMs: 50 }).drainOnce();
    expect(second).toBe(0);
    release();
    expect(await first).toBeGreaterThanOrEqual(5);
  });
});

describe('outbox relay on the smallest pool', () => {
  let runtime: PlatformRuntime;
  beforeAll(async () => {
    // The least DATABASE_POOL_SIZE the settings allow.
    runtime = await startTestRuntime({ role: 'worker', env: { DATABASE_POOL_SIZE: '2' } });
    await createEffectsTable(runtime);
  });
  afterAll(() => runtime.close());

  it('should deliver to in-process consumers that need a connection while its batch holds one (LISTEN is on a session of its own)', async () => {
    const org = await makeOrganization(runtime);
    const bus = new InProcessEventBus();
    await bus.subscribe({
      consumer: 'small-pool',
      sources: [source],
      handle: (event) =>
        consumeOnce(runtime.db, 'small-pool', event, async (tx) => {
          await tx.query('INSERT INTO outbox_test_effects (organization_id, event_id, consumer) VALUES ($1, $2, $3)', [
            event.organizationId,
            event.id,
            'small-pool',
          ]);
        }).then(() => undefined),
    });
    const relay = new OutboxRelay(runtime.db, bus, runtime.signal, { pollMs: 50 });
    await relay.start();
    try {
      expect(relay.listening).toBe(true);
      const events = await runtime.db.inTenant(org, async (tx) => {
        const made = [1, 2, 3].map((i) =>
          createEvent({ type: 'thing.changed', source, organizationId: org.organizationId, aggregateId: `s${i}`, payload: { i } }),
        );
        await tx.emit(made);
        return made;
      });
      const effects = () =>
        runtime.db.asSystem((tx) =>
          tx.query<{ event_id: string }>(`SELECT event_id FROM outbox_test_effects WHERE organization_id = $1 AND consumer = 'small-pool'`, [
            org.organizationId,
          ]),
        );
      // Before: the LISTEN session took one of the two connections and the batch the other, so each
      // consumer waited out the pool's 10 s connection timeout and the batch failed, again and again.
      const done = await eventually(effects, (rows) => rows.length === 3, 5_000);
      expect(done.map((row) => row.event_id).sort()).toEqual(events.map((e) => e.id).sort());
      // The batch is marked published once its handlers returned, a moment after their effects commit.
      const unpublished = () =>
        runtime.db.asSystem((tx) =>
          tx.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [org.organizationId]),
        );
      const [pending] = await eventually(unpublished, ([row]) => row.n === 0, 5_000);
      expect(pending.n).toBe(0);
    } finally {
      await relay.stop();
    }
  });
});
