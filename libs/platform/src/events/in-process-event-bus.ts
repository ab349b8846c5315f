import type { DomainEvent, EventBus, Subscription } from '@engage/shared-kernel';

// Default bus for one process: delivers to every subscription of the event's source, in order.
// A failing handler fails the publish, so the relay retries the batch; consumers are idempotent.
export class InProcessEventBus implements EventBus {
  private readonly subscriptions: Subscription[] = [];

  async subscribe(subscription: Subscription): Promise<void> {
    this.subscriptions.push(subscription);
  }

  async publish(events: DomainEvent[]): Promise<void> {
    for (const event of events) {
      for (const subscription of this.subscriptions) {
        if (subscription.sources.includes(event.source)) await subscription.handle(event);
      }
    }
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  isConnected(): boolean {
    return true;
  }
}
