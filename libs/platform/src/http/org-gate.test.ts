import { DomainError } from '@engage/shared-kernel';
import { TenantLoad } from '../database/tenant-load';
import { loadConfig } from '../config/load-config';
import { type GateLimits, gateLimits, MAX_HELD_REFUSALS, OrgGate } from './org-gate';

const limits = (overrides: Partial<GateLimits>): GateLimits => ({
  perOrganization: 4,
  perSlowOrganization: 1,
  slowMs: 200,
  total: 10,
  queue: 8,
  waitMs: 10_000,
  refusalDelayMs: 0,
  uploadsPerOrganization: 2,
  uploads: 4,
  ...overrides,
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as DomainError,
  );

describe('OrgGate', () => {
  it('should run up to the per-organization limit, queue a few in order, and refuse beyond the queue with 429 and a retry delay', async () => {
    const gate = new OrgGate(limits({ perOrganization: 2, total: 10, queue: 1, waitMs: 10_000 }));
    const first = await gate.enter('a');
    await gate.enter('a');
    const queued = gate.enter('a');
    const refused = await refusal(gate.enter('a'));
    expect(refused).toMatchObject({ kind: 'rate_limited', code: 'too_many_concurrent_requests', details: { retry_after: 1 } });
    // Another organization is not held up.
    const other = await gate.enter('b');
    expect(gate.running('a')).toBe(2);
    first();
    first(); // releasing twice frees one slot only
    const third = await queued;
    expect(gate.running('a')).toBe(2);
    third();
    other();
    expect(gate.running('b')).toBe(0);
  });

  it('should refuse a queued request that waited too long', async () => {
    const gate = new OrgGate(limits({ perOrganization: 1, total: 10, queue: 5, waitMs: 20 }));
    const held = await gate.enter('a');
    expect(await refusal(gate.enter('a'))).toMatchObject({ code: 'too_many_concurrent_requests' });
    held();
    expect(gate.running('a')).toBe(0);
  });

  it('should keep all organizations together under the total, without losing an organization slot on refusal', async () => {
    const gate = new OrgGate(limits({ perOrganization: 5, total: 2, queue: 0, waitMs: 20 }));
    const a = await gate.enter('a');
    await gate.enter('b');
    expect(await refusal(gate.enter('c'))).toMatchObject({ message: expect.stringContaining('all organizations') });
    expect(gate.running('c')).toBe(0);
    a();
    await gate.enter('c');
    expect(gate.running('c')).toBe(1);
  });

  it('should count requests running, waiting and refused for the metrics', async () => {
    const gate = new OrgGate(limits({ perOrganization: 1, total: 10, queue: 1, waitMs: 10_000 }));
    const a = await gate.enter('a');
    const b = await gate.enter('b');
    const waiting = gate.enter('a');
    await refusal(gate.enter('a'));
    expect(gate.totals()).toEqual({ running: 2, waiting: 1 });
    expect(gate.refused).toBe(1);
    a();
    (await waiting)();
    b();
    expect(gate.totals()).toEqual({ running: 0, waiting: 0 });
  });

  it('should refuse early only an organization whose slots and queue are all taken', async () => {
    const gate = new OrgGate(limits({ perOrganization: 1, total: 10, queue: 1, waitMs: 10_000 }));
    await gate.admit('a'); // nothing running: admitted
    const held = await gate.enter('a');
    await gate.admit('a'); // a queue place is left
    const waiting = gate.enter('a');
    expect(await refusal(gate.admit('a'))).toMatchObject({ code: 'too_many_concurrent_requests' });
    await gate.admit('b');
    expect(gate.refused).toBe(1);
    held();
    (await waiting)();
    await gate.admit('a');
  });

  it('should hold an early refusal for the refusal delay before answering it, and hold no more than the cap at once', async () => {
    jest.useFakeTimers();
    try {
      const gate = new OrgGate(limits({ perOrganization: 1, total: 10, queue: 0, refusalDelayMs: 1000 }));
      const held = await gate.enter('a');
      let answered: DomainError | undefined;
      void refusal(gate.admit('a')).then((error) => (answered = error));
      await jest.advanceTimersByTimeAsync(999);
      expect(answered).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      expect(answered).toMatchObject({ code: 'too_many_concurrent_requests', details: { retry_after: 1 } });
      // Another organization is admitted at once meanwhile.
      await gate.admit('b');
      // At the cap, further refusals are answered at once.
      const many = Array.from({ length: MAX_HELD_REFUSALS }, () => refusal(gate.admit('a')));
      let extra: DomainError | undefined;
      void refusal(gate.admit('a')).then((error) => (extra = error));
      await jest.advanceTimersByTimeAsync(0);
      expect(extra).toMatchObject({ code: 'too_many_concurrent_requests' });
      await jest.advanceTimersByTimeAsync(1000);
      expect(await Promise.all(many)).toHaveLength(MAX_HELD_REFUSALS);
      expect(gate.refused).toBe(MAX_HELD_REFUSALS + 2);
      held();
    } finally {
      jest.useRealTimers();
    }
  });

  it('should hold an organization whose recent transactions are slow to fewer slots, and give them back when they are fast again', async () => {
    const load = new TenantLoad();
    const gate = new OrgGate(limits({ perOrganization: 3, perSlowOrganization: 1, slowMs: 200, queue: 5 }), load);
    load.record('a', 1_000);
    expect(gate.isSlow('a')).toBe(true);
    const first = await gate.enter('a');
    const second = gate.enter('a');
    expect(gate.running('a')).toBe(1); // the second waits
    const others = [await gate.enter('b'), await gate.enter('b'), await gate.enter('b')];
    expect(gate.running('b')).toBe(3);
    first();
    (await second)();
    // Fast transactions bring the recent mean down: the full share comes back.
    for (let i = 0; i < 20 && gate.isSlow('a'); i++) load.record('a', 5);
    expect(gate.isSlow('a')).toBe(false);
    const three = [await gate.enter('a'), await gate.enter('a'), await gate.enter('a')];
    expect(gate.running('a')).toBe(3);
    for (const release of [...three, ...others]) release();
    expect(gate.totals()).toEqual({ running: 0, waiting: 0 });
  });

  it('should hold uploads to a budget of their own, per organization and for the process, so that reads keep the other slots', async () => {
    const gate = new OrgGate(limits({ perOrganization: 4, total: 8, queue: 1, waitMs: 50, uploadsPerOrganization: 2, uploads: 4 }));
    const held = [await gate.enter('a', 'upload'), await gate.enter('a', 'upload')];
    // A third upload of the organization waits for one of its two, holding no other slot meanwhile, then is refused.
    const third = refusal(gate.enter('a', 'upload'));
    expect([gate.running('a'), gate.uploads()]).toEqual([2, { running: 2, waiting: 1 }]);
    expect(await third).toMatchObject({ code: 'too_many_concurrent_requests', message: expect.stringContaining('uploads of this organization') });
    // Its reads still run: two of its four slots are left.
    held.push(await gate.enter('a'), await gate.enter('a'));
    held.push(await gate.enter('b', 'upload'), await gate.enter('b', 'upload'));
    expect(await refusal(gate.enter('c', 'upload'))).toMatchObject({ message: expect.stringContaining('uploads of all organizations') });
    expect(gate.uploads()).toEqual({ running: 4, waiting: 0 });
    // The uploads hold 4 of the 8 slots whatever they wait for: the others' reads have the rest.
    held.push(await gate.enter('c'), await gate.enter('c'));
    expect(gate.totals()).toEqual({ running: 8, waiting: 0 });
    expect(await refusal(gate.enter('d'))).toMatchObject({ message: expect.stringContaining('requests of all organizations') });
    for (const release of held) release();
    expect([gate.totals(), gate.uploads()]).toEqual([
      { running: 0, waiting: 0 },
      { running: 0, waiting: 0 },
    ]);
  });

  it('should give an upload its upload slots back when its organization has no slot left for it', async () => {
    const gate = new OrgGate(limits({ perOrganization: 2, total: 8, queue: 0, waitMs: 50, uploadsPerOrganization: 2, uploads: 4 }));
    const reads = [await gate.enter('a'), await gate.enter('a')];
    expect(await refusal(gate.enter('a', 'upload'))).toMatchObject({ message: expect.stringContaining('requests of this organization') });
    expect(gate.uploads()).toEqual({ running: 0, waiting: 0 });
    for (const release of reads) release();
    (await gate.enter('a', 'upload'))();
    expect(gate.totals()).toEqual({ running: 0, waiting: 0 });
  });

  it('should leave reads and sends at least one slot of the organization and of the process, whatever the upload settings', () => {
    const of = (env: Record<string, string>) => gateLimits(loadConfig({ NODE_ENV: 'test', ...env }));
    expect(of({})).toMatchObject({ total: 8, perOrganization: 4, uploads: 4, uploadsPerOrganization: 2 });
    expect(of({ MAX_CONCURRENT_UPLOADS: '50', ORG_MAX_CONCURRENT_UPLOADS: '50' })).toMatchObject({ uploads: 7, uploadsPerOrganization: 3 });
    expect(of({ DATABASE_POOL_SIZE: '3', ORG_MAX_CONCURRENT_REQUESTS: '1' })).toMatchObject({ total: 1, uploads: 1, uploadsPerOrganization: 1 });
  });

  it('should let requests already running finish when an organization turns slow, and admit waiters only below the smaller share', async () => {
    const load = new TenantLoad();
    const gate = new OrgGate(limits({ perOrganization: 2, perSlowOrganization: 1, slowMs: 100, queue: 5 }), load);
    const a = await gate.enter('a');
    const b = await gate.enter('a');
    const waiting = gate.enter('a');
    load.record('a', 500); // the share is now 1, and both running requests go on
    a();
    expect(gate.running('a')).toBe(1);
    b();
    const c = await waiting;
    expect(gate.running('a')).toBe(1);
    c();
  });
});
