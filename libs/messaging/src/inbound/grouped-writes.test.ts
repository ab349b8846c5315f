import { GroupedWrites } from './grouped-writes';

// The statements are recorded functions here: what is under test is how items are grouped and answered.
describe('grouped writes', () => {
  const deferred = () => {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    return { done, release };
  };

  it('should send the first items at once and group those that arrive while statements are on their way', async () => {
    const statements: number[][] = [];
    const gate = deferred();
    const writes = new GroupedWrites<number, number>({
      maxInFlight: 2,
      weight: () => 1,
      maxWeight: 3,
      many: async (items) => {
        statements.push(items);
        return items.map((n) => n * 10);
      },
      one: async (n) => {
        statements.push([n]);
        await gate.done;
        return n * 10;
      },
    });
    const answers = [1, 2, 3, 4, 5, 6, 7].map((n) => writes.write(n));
    gate.release();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50, 60, 70]);
    // Two alone (the free places), then the rest in groups of at most three.
    expect(statements).toEqual([[1], [2], [3, 4, 5], [6, 7]]);
  });

  it('should weigh items and retry a refused group item by item, failing only the bad one', async () => {
    const statements: string[][] = [];
    const gate = deferred();
    const writes = new GroupedWrites<string[], number>({
      maxInFlight: 1,
      weight: (events) => events.length,
      maxWeight: 4,
      many: async (requests) => {
        statements.push(requests.flat());
        if (requests.flat().includes('bad')) throw new Error('refused');
        return requests.map((events) => events.length);
      },
      one: async (events) => {
        statements.push(events);
        await gate.done;
        if (events.includes('bad')) throw new Error('refused');
        return events.length;
      },
    });
    const first = writes.write(['a']);
    const others = [['b', 'c'], ['bad'], ['d', 'e']].map((events) => writes.write(events));
    gate.release();
    await expect(first).resolves.toBe(1);
    const settled = await Promise.allSettled(others);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'refused'))).toEqual([2, 'refused', 2]);
    // ['b','c'] + ['bad'] weigh 3 (['d','e'] would make 5): refused together, then each alone.
    expect(statements).toEqual([['a'], ['b', 'c', 'bad'], ['b', 'c'], ['bad'], ['d', 'e']]);
  });
});
