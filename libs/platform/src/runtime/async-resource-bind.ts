import { AsyncResource } from 'node:async_hooks';

// Fastify wraps every request body parser's callback with AsyncResource#bind. On Node 20 that
// gives each bound function an `asyncResource` accessor whose getter and setter go through
// util.deprecate, and util.deprecate calls Object.setPrototypeOf on every new wrapper. The new
// function map lives in old space and points at the young getter, whose closure reaches the
// request, the reply and the parsed body: so every request's objects survive the young
// generation's collections and pile up in old space until a full collection. In the inbound
// bench that was ~250 KB promoted per scavenge, old space growing 8-9 MB/s and a mark-compact
// every ~10 s. (Node stopped modifying the prototype there in v24, nodejs/node#59195.)
//
// The replacement behaves the same (async scope, `this`, arguments, result, `length`, and an
// `asyncResource` property reading and writing the resource) without the deprecation
// wrappers. It is installed only where Node's own bind builds them.

type Bind = AsyncResource['bind'];

export function nodeBindPromotesClosures(bind: Bind = AsyncResource.prototype.bind): boolean {
  const probe = bind.call(new AsyncResource('engage-probe', { requireManualDestroy: true }), () => undefined) as object;
  const getter = Object.getOwnPropertyDescriptor(probe, 'asyncResource')?.get;
  return getter !== undefined && Object.getPrototypeOf(getter) !== Function.prototype;
}

function leanBind(this: AsyncResource, fn: (...args: unknown[]) => unknown, thisArg?: unknown): (...args: unknown[]) => unknown {
  if (typeof fn !== 'function') {
    throw Object.assign(new TypeError(`The "fn" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`), { code: 'ERR_INVALID_ARG_TYPE' });
  }
  const bound = thisArg === undefined ? callerBound(this, fn) : this.runInAsyncScope.bind(this, fn, thisArg);
  Object.defineProperties(bound, {
    length: { configurable: true, enumerable: false, writable: false, value: fn.length },
    asyncResource: { configurable: true, enumerable: true, writable: true, value: this },
  });
  return bound;
}

// Without a given `this`, the bound function passes on the one it is called with.
function callerBound(resource: AsyncResource, fn: (...args: unknown[]) => unknown) {
  return function (this: unknown, ...args: unknown[]) {
    return resource.runInAsyncScope(fn, this, ...args);
  };
}

// Node's own bind, kept on the class once replaced: the flag lives with AsyncResource itself, so a
// second copy of this module (e.g. another test file's module registry) sees the replacement too.
const NODE_BIND = Symbol.for('engage.AsyncResource.nodeBind');
type Holder = { [NODE_BIND]?: Bind };

export function nodeOwnBind(): Bind {
  return (AsyncResource as Holder)[NODE_BIND] ?? AsyncResource.prototype.bind;
}

// Idempotent; true when the replacement is in place.
export function useLeanAsyncResourceBind(): boolean {
  const holder = AsyncResource as Holder;
  if (holder[NODE_BIND] === undefined && nodeBindPromotesClosures()) {
    holder[NODE_BIND] = AsyncResource.prototype.bind;
    AsyncResource.prototype.bind = leanBind as unknown as Bind;
  }
  return holder[NODE_BIND] !== undefined;
}
