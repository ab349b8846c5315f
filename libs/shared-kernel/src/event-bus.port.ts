import type { DomainEvent } from './domain-event';

export type EventHandler = (event: DomainEvent) => Promise<void>;

export interface Subscription {
  // Consumer name: one consumer group per consuming context; also the idempotency key.
  consumer: string;
  sources: string[];
  handle: EventHandler;
  // Optional: the same effect for several events at once (in their order). A bus that hands over
  // batches (the in-process bus, per relay batch) calls it instead of handle; others call handle.
  handleBatch?: (events: DomainEvent[]) => Promise<void>;
}

// Port of the event bus. Publishing is at-least-once; consumers make their effects idempotent.
export interface EventBus {
  publish(events: DomainEvent[]): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  isConnected(): boolean;
}

export const EVENT_BUS = Symbol('EVENT_BUS');
