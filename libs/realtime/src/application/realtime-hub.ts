import type pino from 'pino';
import { type Binding, bindingMatches } from '../domain/binding';
import { changePayload } from '../domain/change-message';
import type { ChangeNotice } from '../domain/change-notice';
import type { RowReader } from '../infrastructure/row-reader';
import type { Grant } from './join-authorizer';
import { Refused } from './join-authorizer';

// A joined channel as the hub sees it. The socket owns it; the hub reads `grant` at each change, so
// an access_token update takes effect for the next one.
export interface Subscription {
  readonly socket: SubscriberSocket;
  readonly topic: string;
  grant: Grant;
  readonly bindings: readonly Binding[];
}

export interface SubscriberSocket {
  // false when the socket was closed for a full send buffer: nothing more goes to it.
  deliver(topic: string, payload: Record<string, unknown>): boolean;
}

export interface HubLimits {
  maxSocketsPerOrganization: number;
}

// Changes waiting per organization before further ones are dropped (and logged): a burst of
// writes must not grow the process's memory without bound while reads catch up.
const MAX_PENDING_PER_ORGANIZATION = 1000;
// Reads for subscribers running at once in this process: the rest of the pool stays for requests.
const READ_CONCURRENCY = 4;

// Routes each change to the subscriptions of its organization: one read per distinct reader
// (organization, user, role) in that reader's tenant transaction, then each subscription's filters
// over the rows it returned. Changes of one organization are handled in commit order.
export class RealtimeHub {
  private readonly byOrganization = new Map<string, Set<Subscription>>();
  private readonly socketsByOrganization = new Map<string, Map<SubscriberSocket, number>>();
  private readonly queues = new Map<string, { tail: Promise<void>; pending: number }>();
  private reading = 0;
  private readonly waitingReads: (() => void)[] = [];

  constructor(
    private readonly reader: RowReader,
    private readonly limits: HubLimits,
    private readonly log: pino.Logger,
  ) {}

  attach(subscription: Subscription): void {
    const organizationId = subscription.grant.ctx.organizationId;
    const sockets = this.socketsByOrganization.get(organizationId) ?? new Map<SubscriberSocket, number>();
    const channels = sockets.get(subscription.socket) ?? 0;
    if (channels === 0 && sockets.size >= this.limits.maxSocketsPerOrganization) {
      throw new Refused(
        `this organization already holds ${this.limits.maxSocketsPerOrganization} realtime connections on this server (REALTIME_MAX_SOCKETS_PER_ORGANIZATION)`,
      );
    }
    sockets.set(subscription.socket, channels + 1);
    this.socketsByOrganization.set(organizationId, sockets);
    const subscriptions = this.byOrganization.get(organizationId) ?? new Set<Subscription>();
    subscriptions.add(subscription);
    this.byOrganization.set(organizationId, subscriptions);
  }

  detach(subscription: Subscription): void {
    const organizationId = subscription.grant.ctx.organizationId;
    const subscriptions = this.byOrganization.get(organizationId);
    if (!subscriptions?.delete(subscription)) return;
    if (subscriptions.size === 0) this.byOrganization.delete(organizationId);
    const sockets = this.socketsByOrganization.get(organizationId);
    const channels = (sockets?.get(subscription.socket) ?? 1) - 1;
    if (channels > 0) sockets?.set(subscription.socket, channels);
    else sockets?.delete(subscription.socket);
    if (sockets?.size === 0) this.socketsByOrganization.delete(organizationId);
  }

  // The organizations this process holds subscribers of.
  organizations(): string[] {
    return [...this.byOrganization.keys()];
  }

  subscriptions(): Subscription[] {
    return [...this.byOrganization.values()].flatMap((set) => [...set]);
  }

  // Called for every NOTIFY; cheap when nobody of the organization listens.
  onChange(notice: ChangeNotice): void {
    if (!this.byOrganization.has(notice.organizationId)) return;
    const queue = this.queues.get(notice.organizationId) ?? { tail: Promise.resolve(), pending: 0 };
    if (queue.pending >= MAX_PENDING_PER_ORGANIZATION) {
      this.log.warn({ organizationId: notice.organizationId, table: notice.table }, 'realtime: change dropped, the organization has too many waiting');
      return;
    }
    queue.pending++;
    queue.tail = queue.tail
      .then(() => this.dispatch(notice))
      .catch((error: unknown) => this.log.error({ err: error, organizationId: notice.organizationId }, 'realtime: change not delivered'))
      .finally(() => {
        queue.pending--;
        if (queue.pending === 0 && this.queues.get(notice.organizationId) === queue) this.queues.delete(notice.organizationId);
      });
    this.queues.set(notice.organizationId, queue);
  }

  private async dispatch(notice: ChangeNotice): Promise<void> {
    const interested = [...(this.byOrganization.get(notice.organizationId) ?? [])].filter((subscription) =>
      subscription.bindings.some((binding) => binding.tables.includes(notice.table) && (binding.events === '*' || binding.events === notice.type)),
    );
    const byReader = new Map<string, Subscription[]>();
    for (const subscription of interested) {
      const { userId, role } = subscription.grant.ctx;
      const key = `${userId ?? ''}|${role}`;
      byReader.set(key, [...(byReader.get(key) ?? []), subscription]);
    }
    await Promise.all([...byReader.values()].map((group) => this.deliverTo(group, notice)));
  }

  private async deliverTo(group: Subscription[], notice: ChangeNotice): Promise<void> {
    const { ctx } = group[0].grant;
    const columns = this.reader.readableColumns(notice.table, ctx.role);
    if (!columns) return;
    // A deleted row cannot be read: its id goes to the organization's subscribers, as row-level
    // security (by organization) allows them to know it existed.
    const rows =
      notice.type === 'DELETE'
        ? notice.ids.map((id) => ({ id }))
        : await this.limited(() => this.reader.read({ ...ctx, requestId: `realtime-${notice.table}` }, notice.table, notice.ids));
    for (const row of rows) {
      for (const subscription of group) this.deliverRow(subscription, notice, row, columns);
    }
  }

  private deliverRow(subscription: Subscription, notice: ChangeNotice, row: Record<string, unknown>, columns: ReadonlyMap<string, string>): void {
    const matched = subscription.bindings.filter((binding) => bindingMatches(binding, notice.table, notice.type, row));
    // One message per distinct column selection among the matched bindings (usually one).
    const bySelect = new Map<string, Binding[]>();
    for (const binding of matched) {
      const key = binding.select?.join(',') ?? '*';
      bySelect.set(key, [...(bySelect.get(key) ?? []), binding]);
    }
    for (const bindings of bySelect.values()) {
      const payload = changePayload(
        notice,
        row,
        columns,
        bindings[0].select,
        bindings.map((binding) => binding.id),
      );
      if (!subscription.socket.deliver(subscription.topic, payload)) return;
    }
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    while (this.reading >= READ_CONCURRENCY) await new Promise<void>((resolve) => this.waitingReads.push(resolve));
    this.reading++;
    try {
      return await work();
    } finally {
      this.reading--;
      this.waitingReads.shift()?.();
    }
  }
}
