// How long each organization's request transactions have held a connection lately: a moving mean
// over its last few. The gate holds an organization whose transactions are slow to fewer slots
// (each slow statement keeps one of PostgreSQL's cores busy), while time a request spends outside
// the database (an upload arriving, a provider answering) does not count against it.
const RECENT_WEIGHT = 0.25;
const REMEMBERED_ORGANIZATIONS = 10_000;

export class TenantLoad {
  private readonly recent = new Map<string, number>();

  record(organizationId: string, ms: number): void {
    const before = this.recent.get(organizationId);
    if (before === undefined && this.recent.size >= REMEMBERED_ORGANIZATIONS) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(organizationId, before === undefined ? ms : before + RECENT_WEIGHT * (ms - before));
  }

  // The organization's recent mean transaction time in ms (0 when none is known).
  recentMs(organizationId: string): number {
    return this.recent.get(organizationId) ?? 0;
  }
}
