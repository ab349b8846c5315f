import { DomainError } from '@engage/shared-kernel';
import type { Config } from '../config/settings';
import { TenantLoad } from '../database/tenant-load';

export interface GateLimits {
  // Requests of one organization running at once.
  perOrganization: number;
  // Requests running at once of an organization whose recent requests are slow (see `slowMs`).
  perSlowOrganization: number;
  // A recent mean time (ms) of its request transactions at or above which an organization counts as slow.
  slowMs: number;
  // Gated requests of the whole process running at once (the pool's connections they may hold).
  total: number;
  // Requests waiting for a slot, per organization; beyond it the request is refused at once.
  queue: number;
  // How long a request waits for a slot before it is refused.
  waitMs: number;
  // How long an early refusal (admit) is held before it is answered (0: at once).
  refusalDelayMs: number;
  // Uploads (bodies read as they arrive) of one organization running at once, within its own slots.
  uploadsPerOrganization: number;
  // Uploads of the whole process running at once, within `total`.
  uploads: number;
}

// What a request is to the gate: an upload holds its slots while its body arrives, which a client
// decides the pace of, so uploads have a budget of their own besides the organization's slots.
export type GatedKind = 'request' | 'upload';

// Refusals held at once, process-wide: beyond it they are answered at once (a held refusal costs
// an open socket and a timer, nothing of the pool).
export const MAX_HELD_REFUSALS = 1000;

// Connections of the pool kept out of the gated requests' reach: sign-in, health, the worker's
// relay and consumers when api and worker share a process.
export const KEPT_CONNECTIONS = 2;

export function gateLimits(config: Config): GateLimits {
  const total = Math.max(1, config.DATABASE_POOL_SIZE - KEPT_CONNECTIONS);
  return {
    perOrganization: config.ORG_MAX_CONCURRENT_REQUESTS,
    perSlowOrganization: Math.min(config.ORG_MAX_CONCURRENT_SLOW_REQUESTS, config.ORG_MAX_CONCURRENT_REQUESTS),
    slowMs: config.ORG_SLOW_REQUEST_MS,
    total,
    queue: config.ORG_MAX_QUEUED_REQUESTS,
    waitMs: config.ORG_QUEUE_WAIT_MS,
    refusalDelayMs: config.ORG_REFUSAL_DELAY_MS,
    // Uploads never take every slot: one is always left for reads and sends (unless there is only one).
    uploadsPerOrganization: Math.max(1, Math.min(config.ORG_MAX_CONCURRENT_UPLOADS, config.ORG_MAX_CONCURRENT_REQUESTS - 1)),
    uploads: Math.max(1, Math.min(config.MAX_CONCURRENT_UPLOADS, total - 1)),
  };
}

const busy = (what: string): DomainError =>
  new DomainError('rate_limited', 'too_many_concurrent_requests', `Too many ${what} are running at once; retry shortly`, { retry_after: 1 });

// A counting semaphore with a bounded FIFO queue and a bounded wait; its size may change between
// calls (an organization becoming slow), and a smaller size applies as running requests end.
class Slots {
  running = 0;
  private readonly waiting: { grant: () => void; timer: NodeJS.Timeout }[] = [];

  constructor(private readonly size: () => number) {}

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  get queued(): number {
    return this.waiting.length;
  }

  // Whether a request arriving now would be refused at once (every slot taken, the queue full).
  full(queue: number): boolean {
    return this.running >= this.size() && this.waiting.length >= queue;
  }

  take(queue: number, waitMs: number, what: string): Promise<void> {
    if (this.running < this.size() && this.waiting.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= queue || waitMs <= 0) return Promise.reject(busy(what));
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(busy(what));
        }, waitMs),
      };
      this.waiting.push(entry);
    });
  }

  // The slot passes to the next waiters while the size allows.
  give(): void {
    this.running--;
    while (this.running < this.size() && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()!.grant();
    }
  }
}

// Fair sharing of the process's database connections, and through them of the database's CPU: one
// organization cannot hold more than `perOrganization` connections through data API requests, or
// `perSlowOrganization` while its recent transactions are slow (each slow statement keeps a core of
// PostgreSQL busy, so a few of them would take the cores the others need); those requests together
// never take the connections kept for the rest (sign-in, functions, health, the worker in a
// combined process). An upload takes, before those, a slot of the upload budget (its
// organization's and the process's): a client sends its body at the pace it likes, so uploads
// together hold at most `uploads` of the `total` slots and the reads and sends of the other
// organizations always have the rest, whatever the uploads wait for.
export class OrgGate {
  private readonly orgs = new Map<string, Slots>();
  private readonly all: Slots;
  private readonly orgUploads = new Map<string, Slots>();
  private readonly allUploads: Slots;
  // Requests refused since the start (the metrics export it).
  refused = 0;
  // Early refusals being held before their answer.
  private held = 0;

  constructor(
    private readonly limits: GateLimits,
    // The organizations' transaction times, recorded by the Database their requests use.
    private readonly load: TenantLoad = new TenantLoad(),
  ) {
    this.all = new Slots(() => limits.total);
    this.allUploads = new Slots(() => limits.uploads);
  }

  // A cheap early refusal, before the caller's credentials cost a database query: an organization
  // whose slots and queue are all taken is answered 429 here, so a flood of its requests cannot
  // take the pool's connections from the others through their session checks. The answer is held
  // `refusalDelayMs` first: a client that retries at once, ignoring Retry-After, would otherwise
  // keep the process's CPU (and the machine's) busy with thousands of refusals a second that the
  // other organizations' requests queue behind.
  async admit(organizationId: string): Promise<void> {
    if (!this.orgs.get(organizationId)?.full(this.limits.queue)) return;
    this.refused++;
    if (this.limits.refusalDelayMs > 0 && this.held < MAX_HELD_REFUSALS) {
      this.held++;
      await new Promise((resolve) => setTimeout(resolve, this.limits.refusalDelayMs));
      this.held--;
    }
    throw busy('requests of this organization');
  }

  // Takes the request's slots, waiting at most `waitMs` for all of them together; resolves to
  // their release (idempotent).
  async enter(organizationId: string, kind: GatedKind = 'request'): Promise<() => void> {
    const deadline = Date.now() + this.limits.waitMs;
    const left = () => deadline - Date.now();
    const { queue } = this.limits;
    const taken: (() => void)[] = [];
    const giveBack = () => {
      for (const give of taken.splice(0).reverse()) give();
    };
    try {
      if (kind === 'upload') {
        taken.push(await this.takeOf(this.orgUploads, organizationId, () => this.limits.uploadsPerOrganization, 'uploads of this organization'));
        await this.allUploads.take(queue * 4, left(), 'uploads of all organizations');
        taken.push(() => this.allUploads.give());
      }
      taken.push(await this.takeOf(this.orgs, organizationId, () => this.limitOf(organizationId), 'requests of this organization', left()));
      await this.all.take(queue * 4, left(), 'requests of all organizations');
      taken.push(() => this.all.give());
    } catch (error) {
      this.refused++;
      giveBack();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      giveBack();
    };
  }

  // Whether the organization's recent transactions are slow enough to hold it to fewer slots.
  isSlow(organizationId: string): boolean {
    return this.load.recentMs(organizationId) >= this.limits.slowMs;
  }

  // Gated requests of all organizations (uploads included) running and waiting for a slot.
  totals(): { running: number; waiting: number } {
    return sum(this.orgs);
  }

  // Uploads running (holding their upload slots) and waiting for one.
  uploads(): { running: number; waiting: number } {
    const { waiting } = sum(this.orgUploads);
    return { running: this.allUploads.running, waiting: waiting + this.allUploads.queued };
  }

  running(organizationId: string): number {
    return this.orgs.get(organizationId)?.running ?? 0;
  }

  private limitOf(organizationId: string): number {
    return this.isSlow(organizationId) ? this.limits.perSlowOrganization : this.limits.perOrganization;
  }

  // A slot of the organization's in `map` (made on first use, dropped when idle), and its release.
  private async takeOf(map: Map<string, Slots>, organizationId: string, size: () => number, what: string, waitMs = this.limits.waitMs): Promise<() => void> {
    let slots = map.get(organizationId);
    if (!slots) {
      slots = new Slots(size);
      map.set(organizationId, slots);
    }
    const own = slots;
    try {
      await own.take(this.limits.queue, waitMs, what);
    } catch (error) {
      if (own.idle && map.get(organizationId) === own) map.delete(organizationId);
      throw error;
    }
    return () => {
      own.give();
      if (own.idle && map.get(organizationId) === own) map.delete(organizationId);
    };
  }
}

function sum(map: Map<string, Slots>): { running: number; waiting: number } {
  let running = 0;
  let waiting = 0;
  for (const slots of map.values()) {
    running += slots.running;
    waiting += slots.queued;
  }
  return { running, waiting };
}
