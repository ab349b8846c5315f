import { createEvent, type DomainEvent } from './domain-event';

// A published event, declared once by the context that produces it: its name, topic (source),
// schema version and payload type, plus the public contracts other contexts read it through. The
// webhooks and CRM contexts know events only through these declarations (the composition hands
// them the catalogue), never by name.

type Obj = Record<string, unknown>;

// Keys of the payload whose value is a record (an object): what a webhook's `data` can be about.
type IsRecord<V> = NonNullable<V> extends object ? (NonNullable<V> extends readonly unknown[] ? false : true) : false;
type RecordKey<P> = { [K in keyof P]-?: IsRecord<P[K]> extends true ? K : never }[keyof P] & string;

// A §6 webhook kind's public `data`: the listed `fields` of the payload's `record`, plus the listed
// facts of the payload under `changes` (only when one is present). Nothing unlisted is ever sent,
// so a field added to the internal record does not reach integrators, and a listed field removed
// from the payload type does not compile.
export type WebhookContract<P> = {
  [K in RecordKey<P>]: {
    readonly record: K;
    readonly fields: readonly (keyof NonNullable<P[K]> & string)[];
    readonly changes?: readonly Exclude<keyof P & string, K | 'actor_id'>[];
  };
}[RecordKey<P>];

// What an event adds to the CRM's activity timelines (contacts, deals, companies). `touches`: the
// event counts as activity for the contact's deals ('contact') or for its own deal ('deal').
export interface TimelineProjection {
  contact_id: string | null;
  deal_id: string | null;
  company_id?: string | null;
  summary: string;
  data: Obj;
  touches?: 'contact' | 'deal';
}

export interface EventDeclaration<P extends object> {
  readonly name: string;
  readonly source: string;
  readonly version: number;
  // One sentence for the docs: when the event happens.
  readonly description: string;
  // false: declared ahead of a producer that does not exist yet (listed in the catalogue, never emitted).
  readonly produced?: boolean;
  readonly webhook?: WebhookContract<P>;
  // Payloads arrive over the bus as JSON: a projection reads them defensively and answers
  // undefined for a shape it cannot use, which the timeline skips.
  readonly timeline?: (payload: P) => TimelineProjection | undefined;
}

// A webhook contract with the payload type erased: what the catalogue and the webhooks context read.
export interface WebhookShape {
  readonly record: string;
  readonly fields: readonly string[];
  readonly changes?: readonly string[];
}

export interface EventContract<P extends object = object> {
  readonly name: string;
  readonly source: string;
  readonly version: number;
  readonly description: string;
  readonly produced: boolean;
  readonly webhook?: WebhookShape;
  timeline?(payload: P): TimelineProjection | undefined;
  // The event, stamped with this declaration's name, source and version.
  create(input: { organizationId: string; aggregateId: string; payload: P; occurredAt?: Date }): DomainEvent;
}

export function defineEvent<P extends object>(declaration: EventDeclaration<P>): EventContract<P> {
  const { name, source, version, description, webhook, timeline } = declaration;
  return {
    name,
    source,
    version,
    description,
    produced: declaration.produced ?? true,
    webhook: webhook as WebhookShape | undefined,
    timeline,
    create: ({ organizationId, aggregateId, payload, occurredAt }) =>
      createEvent({ type: name, source, schemaVersion: version, organizationId, aggregateId, payload: payload as Obj, occurredAt }),
  };
}

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

// The `data` of a delivery of `contract`'s kind. Keys keep the order the payload has them in (as
// the bus delivered it), so the bytes are what they were before declarations existed.
export function webhookData(contract: EventContract, payload: Obj): Obj | undefined {
  const webhook = contract.webhook;
  if (!webhook) return undefined;
  const record = payload[webhook.record];
  if (!isObject(record)) return undefined;
  const fields = new Set(webhook.fields);
  const data: Obj = Object.fromEntries(
    Object.keys(record)
      .filter((key) => fields.has(key))
      .map((key) => [key, record[key]]),
  );
  const changeKeys = new Set(webhook.changes ?? []);
  const changes = Object.fromEntries(
    Object.keys(payload)
      .filter((key) => changeKeys.has(key) && payload[key] !== undefined)
      .map((key) => [key, payload[key]]),
  );
  return Object.keys(changes).length > 0 ? { ...data, changes } : data;
}
