import { type DomainEvent, type EventContract, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';

// What one event adds to the timelines of a contact, a deal and/or a company.
export interface TimelineEntry {
  event_id: string;
  type: string;
  source: string;
  occurred_at: string;
  actor_id: string | null;
  contact_id: string | null;
  deal_id: string | null;
  company_id: string | null;
  summary: string;
  data: Record<string, unknown>;
  // Not stored: whether the entry counts as activity for the contact's deals or for its own deal.
  touches?: 'contact' | 'deal';
}

// What an event adds to the timelines, by the projection its producer declared (the catalogue's
// `contract` for it). An event without one, or of a shape the projection cannot read, is skipped
// (undefined), never an error: the consumer must not stall on another context's change of payload.
export function timelineEntryOf(event: DomainEvent, contract: EventContract | undefined): TimelineEntry | undefined {
  if (!contract?.timeline || !isPayloadObject(event.payload) || typeof event.type !== 'string') return undefined;
  const payload = event.payload;
  let mapped: ReturnType<NonNullable<EventContract['timeline']>>;
  try {
    mapped = contract.timeline(payload);
  } catch {
    return undefined;
  }
  if (!mapped) return undefined;
  const company_id = mapped.company_id ?? null;
  if (mapped.contact_id === null && mapped.deal_id === null && company_id === null) return undefined;
  const occurred = Date.parse(event.occurredAt);
  return {
    event_id: event.id,
    type: event.type.slice(0, 100),
    source: event.source.slice(0, 50),
    occurred_at: Number.isNaN(occurred) ? new Date().toISOString() : new Date(occurred).toISOString(),
    actor_id: uuidOrNull(payload.actor_id),
    ...mapped,
    company_id,
    summary: mapped.summary.slice(0, 500),
  };
}

// Which deals an entry counts as activity for (deal auto-reassignment looks at last_activity_at),
// as the producer declared it: the deals of its contact (a conversation, a call) or its own deal
// (a note or a task on a deal).
export function activityTarget(entry: TimelineEntry): { deal_id: string | null; contact_id: string | null } | undefined {
  if (entry.touches === 'contact') return entry.contact_id ? { deal_id: null, contact_id: entry.contact_id } : undefined;
  if (entry.touches === 'deal') return entry.deal_id ? { deal_id: entry.deal_id, contact_id: null } : undefined;
  return undefined;
}
