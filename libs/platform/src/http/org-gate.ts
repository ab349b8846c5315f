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
}

// Refusals held at once, process-wide: beyond it they are answered at once (a held refusal costs
// an open socket and a timer, nothing of the pool).
export const MAX_HELD_REFUSALS = 1000;

// Connections of the pool kept out of the gated requests' reach: sign-in, health, the worker's
// relay and consumers when api and worker share a process.
export const KEPT_CONNECTIONS = 2;

export const gateLimits = (config: Config): GateLimits => ({
  perOrganization: config.ORG_MAX_CONCURRENT_REQUESTS,
  perSlowOrganization: Math.min(config.ORG_MAX_CONCURRENT_SLOW_REQUESTS, config.ORG_MAX_CONCURRENT_REQUESTS),
  slowMs: config.ORG_SLOW_REQUEST_MS,
  total: Math.max(1, config.DATABASE_POOL_SIZE - KEPT_CONNECTIONS),
  queue: config.ORG_MAX_QUEUED_REQUESTS,
  waitMs: config.ORG_QUEUE_WAIT_MS,
  refusalDelayMs: config.ORG_REFUSAL_DELAY_MS,
});

const busy = (what: string): DomainError =>
  new DomainError('rate_limited', 'too_many_concurrent_requests', `Too many requests of ${what} are running at once; retry shortly`, { retry_after: 1 });

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
    if (this.waiting.length >= queue) return Promise.reject(busy(what));
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
// combined process).
export class OrgGate {
  private readonly orgs = new Map<string, Slots>();
  private readonly all: Slots;
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
    throw busy('this organization');
  }

  async enter(organizationId: string): Promise<() => void> {
    let org = this.orgs.get(organizationId);
    if (!org) {
      org = new Slots(() => this.limitOf(organizationId));
      this.orgs.set(organizationId, org);
    }
    const own = org;
    try {
      await own.take(this.limits.queue, this.limits.waitMs, 'this organization');
    } catch (error) {
      this.refused++;
      if (own.idle) this.orgs.delete(organizationId);
      throw error;
    }
    try {
      await this.all.take(this.limits.queue * 4, this.limits.waitMs, 'all organizations');
    } catch (error) {
      this.refused++;
      this.release(organizationId, own);
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.all.give();
      this.release(organizationId, own);
    };
  }

  // Whether the organization's recent transactions are slow enough to hold it to fewer slots.
  isSlow(organizationId: string): boolean {
    return this.load.recentMs(organizationId) >= this.limits.slowMs;
  }

  // Gated requests of all organizations running and waiting for a slot.
  totals(): { running: number; waiting: number } {
    let running = 0;
    let waiting = 0;
    for (const org of this.orgs.values()) {
      running += org.running;
      waiting += org.queued;
    }
    return { running, waiting };
  }

  running(organizationId: string): number {
    return this.orgs.get(organizationId)?.running ?? 0;
  }

  private limitOf(organizationId: string): number {
    return this.isSlow(organizationId) ? this.limits.perSlowOrganization : this.limits.perOrganization;
  }

  private release(organizationId: string, org: Slots): void {
    org.give();
    if (org.idle) this.orgs.delete(organizationId);
  }
}
