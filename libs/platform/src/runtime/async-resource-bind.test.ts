import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { nodeBindPromotesClosures, nodeOwnBind, useLeanAsyncResourceBind } from './async-resource-bind';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

// Binds 2,000 short-lived callbacks, each holding 8 KB, then runs two young-generation
// collections: how much of that reached old space.
function promotedBytes(bind: AsyncResource['bind']): number {
  gc();
  const before = oldSpaceUsed();
  let last = 0;
  for (let i = 0; i < 2000; i++) {
    const payload = new Array<number>(1000).fill(i);
    const bound = bind.call(new AsyncResource('probe'), () => payload.length) as () => number;
    last = bound();
  }
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  expect(last).toBe(1000);
  return oldSpaceUsed() - before;
}

describe('AsyncResource#bind without per-call deprecation wrappers', () => {
  const replaced = useLeanAsyncResourceBind();
  const nodeBind = nodeOwnBind(); // Node's, even when another module copy replaced it first

  it('is replaced exactly when Node builds the wrappers, and only once', () => {
    expect(replaced).toBe(nodeBindPromotesClosures(nodeBind));
    expect(useLeanAsyncResourceBind()).toBe(replaced);
    expect(nodeBindPromotesClosures()).toBe(false);
    const installed = AsyncResource.prototype.bind;
    jest.isolateModules(() => {
      // A second copy of the module sees the replacement and keeps Node's own bind as it was.
      const copy = jest.requireActual<typeof import('./async-resource-bind')>('./async-resource-bind');
      expect(copy.useLeanAsyncResourceBind()).toBe(replaced);
      expect(copy.nodeOwnBind()).toBe(nodeBind);
    });
    expect(AsyncResource.prototype.bind).toBe(installed);
  });

  it('lets bound callbacks die young, where Node 20 own bind promoted them', () => {
    expect(promotedBytes(AsyncResource.prototype.bind)).toBeLessThan(2_000_000);
    if (replaced) expect(promotedBytes(nodeBind)).toBeGreaterThan(4_000_000);
  });

  it('runs the function in the async context the resource was made in, with this, arguments and result', () => {
    const storage = new AsyncLocalStorage<string>();
    const resource = storage.run('request-1', () => new AsyncResource('test'));
    const bound = storage.run('request-2', () =>
      resource.bind(function (this: unknown, a: number, b: number) {
        return { store: storage.getStore(), self: this, sum: a + b };
      }),
    );
    const receiver = { name: 'receiver' };
    expect(bound.call(receiver, 2, 3)).toEqual({ store: 'request-1', self: receiver, sum: 5 });
    expect(bound.length).toBe(2);
    expect((bound as unknown as { asyncResource: AsyncResource }).asyncResource).toBe(resource);
    expect(Object.keys(bound)).toEqual(['asyncResource']);
  });

  it('binds this when given, through the static helper too', () => {
    const storage = new AsyncLocalStorage<string>();
    const self = { name: 'given' };
    const bound = storage.run('outer', () => AsyncResource.bind(function (this: unknown) {
      return [storage.getStore(), this];
    }, 'typed', self));
    expect(storage.run('other', () => bound())).toEqual(['outer', self]);
  });

  it('refuses a non-function like Node does', () => {
    const resource = new AsyncResource('test');
    expect(() => resource.bind('nope' as unknown as () => void)).toThrow(expect.objectContaining({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('bubbles the function errors through', () => {
    const bound = new AsyncResource('test').bind(() => {
      throw new Error('inside');
    });
    expect(() => bound()).toThrow('inside');
  });
});
