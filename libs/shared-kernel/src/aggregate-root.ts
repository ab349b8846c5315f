import type { DomainEvent } from './domain-event';

// Aggregates record the events of their changes; the unit of work writes them to the outbox
// in the same transaction as the state.
export abstract class AggregateRoot {
  private pending: DomainEvent[] = [];

  protected record(event: DomainEvent): void {
    this.pending.push(event);
  }

  pullEvents(): DomainEvent[] {
    const events = this.pending;
    this.pending = [];
    return events;
  }
}
