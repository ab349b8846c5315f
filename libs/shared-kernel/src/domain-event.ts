import { randomUUID } from 'node:crypto';

// A fact that happened inside one organization. `source` names the bounded context that owns it
// and becomes the Kafka topic; `type` is the event kind (e.g. `deal.stage.changed`).
export interface DomainEvent<P extends object = Record<string, unknown>> {
  readonly id: string;
  readonly type: string;
  readonly source: string;
  readonly organizationId: string;
  readonly aggregateId: string;
  readonly occurredAt: string;
  readonly schemaVersion: number;
  readonly payload: P;
  // What caused it, when a rule's action did (automation's loop guard); absent: a person, a
  // provider or a timer, depth 0.
  readonly cause?: EventCause;
}

// The rule run whose action caused an event, and that event's depth: its cause's depth + 1.
export interface EventCause {
  readonly rule_id: string;
  readonly run_id: string;
  readonly depth: number;
}

export const causeDepth = (event: Pick<DomainEvent, 'cause'>): number => event.cause?.depth ?? 0;

export interface NewEvent<P extends object> {
  type: string;
  source: string;
  organizationId: string;
  aggregateId: string;
  payload: P;
  schemaVersion?: number;
  occurredAt?: Date;
}

export function createEvent<P extends object>(input: NewEvent<P>): DomainEvent<P> {
  return {
    id: randomUUID(),
    type: input.type,
    source: input.source,
    organizationId: input.organizationId,
    aggregateId: input.aggregateId,
    occurredAt: (input.occurredAt ?? new Date()).toISOString(),
    schemaVersion: input.schemaVersion ?? 1,
    payload: input.payload,
  };
}

export const topicOf = (source: string): string => `events.${source}`;
