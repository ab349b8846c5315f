import type { DomainEvent, EventBus, Subscription } from '@engage/shared-kernel';

// Default bus for one process: hands each subscription the batch's events of its sources, in
// order (all at once to handleBatch when it has one, else one by one), one subscription after the
// other. A failing handler fails the publish, so the relay retries the batch; consumers are
// idempotent.
export class InProcessEventBus implements EventBus {
  private readonly subscriptions: Subscription[] = [];

  async subscribe(subscription: Subscription): Promise<void> {
    this.subscriptions.push(subscription);
  }

  async publish(events: DomainEvent[]): Promise<void> {
    for (const subscription of this.subscriptions) {
      const mine = events.filter((event) => subscription.sources.includes(event.source));
      if (mine.length === 0) continue;
      if (subscription.handleBatch) await subscription.handleBatch(mine);
      else for (const event of mine) await subscription.handle(event);
    }
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  isConnected(): boolean {
    return true;
  }
}
