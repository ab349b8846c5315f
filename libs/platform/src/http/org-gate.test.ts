import { DomainError } from '@engage/shared-kernel';
import { OrgGate } from './org-gate';

const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as DomainError);

describe('OrgGate', () => {
  it('should run up to the per-organization limit, queue a few in order, and refuse beyond the queue with 429 and a retry delay', async () => {
    const gate = new OrgGate({ perOrganization: 2, total: 10, queue: 1, waitMs: 10_000 });
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
    const gate = new OrgGate({ perOrganization: 1, total: 10, queue: 5, waitMs: 20 });
    const held = await gate.enter('a');
    expect(await refusal(gate.enter('a'))).toMatchObject({ code: 'too_many_concurrent_requests' });
    held();
    expect(gate.running('a')).toBe(0);
  });

  it('should keep all organizations together under the total, without losing an organization slot on refusal', async () => {
    const gate = new OrgGate({ perOrganization: 5, total: 2, queue: 0, waitMs: 20 });
    const a = await gate.enter('a');
    await gate.enter('b');
    expect(await refusal(gate.enter('c'))).toMatchObject({ message: expect.stringContaining('all organizations') });
    expect(gate.running('c')).toBe(0);
    a();
    await gate.enter('c');
    expect(gate.running('c')).toBe(1);
  });

  it('should count requests running, waiting and refused for the metrics', async () => {
    const gate = new OrgGate({ perOrganization: 1, total: 10, queue: 1, waitMs: 10_000 });
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
    const gate = new OrgGate({ perOrganization: 1, total: 10, queue: 1, waitMs: 10_000 });
    gate.admit('a'); // nothing running: admitted
    const held = await gate.enter('a');
    gate.admit('a'); // a queue place is left
    const waiting = gate.enter('a');
    expect(() => gate.admit('a')).toThrow(expect.objectContaining({ code: 'too_many_concurrent_requests' }));
    gate.admit('b');
    expect(gate.refused).toBe(1);
    held();
    (await waiting)();
    gate.admit('a');
  });
});
