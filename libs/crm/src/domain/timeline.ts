import { type DomainEvent, isUuid } from '@engage/shared-kernel';

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
}

// The events the timeline consumer listens to, by source.
export const TIMELINE_SOURCES = ['crm', 'messaging', 'calls', 'reengagement'];

const SNIPPET = 140;
const CONTENT_MAX = 1000;

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const uuid = (value: unknown): string | null => (isUuid(value) ? value.toLowerCase() : null);
const str = (value: unknown, max = CONTENT_MAX): string | null => (typeof value === 'string' ? value.slice(0, max) : null);
const snippet = (value: unknown): string => {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  return text.length > SNIPPET ? `${text.slice(0, SNIPPET - 1)}…` : text;
};
// Keeps the listed fields that are strings, numbers, booleans or null: enough to render a row.
const pick = (record: Obj, fields: string[]): Obj =>
  Object.fromEntries(fields.filter((f) => ['string', 'number', 'boolean'].includes(typeof record[f]) || record[f] === null).map((f) => [f, typeof record[f] === 'string' ? str(record[f]) : record[f]]));

type Mapped = Pick<TimelineEntry, 'contact_id' | 'deal_id' | 'summary' | 'data'> & { company_id?: string | null };

function crmEntry(type: string, payload: Obj): Mapped | undefined {
  const { contact, deal, task, note } = payload;
  if (type.startsWith('contact.') && isObject(contact)) {
    const summary = type === 'contact.created' ? 'Contact created' : type === 'contact.assigned' ? 'Contact assigned' : type === 'contact.updated' ? 'Contact updated' : undefined;
    if (!summary) return undefined;
    return { contact_id: uuid(contact.id), deal_id: null, summary, data: pick(contact, ['id', 'first_name', 'last_name', 'assignee_id']) };
  }
  if (type.startsWith('deal.') && isObject(deal)) {
    const data = { ...pick(deal, ['id', 'title', 'stage', 'value', 'currency', 'owner_id']), ...pick(payload, ['from_stage', 'to_stage', 'previous_owner_id', 'reason']) };
    const title = snippet(deal.title);
    const summary =
      type === 'deal.created' ? `Deal created: ${title}`
      : type === 'deal.stage.changed' ? `Stage changed from ${str(payload.from_stage, 50) ?? '?'} to ${str(payload.to_stage, 50) ?? '?'}: ${title}`
      : type === 'deal.assigned' ? `Deal ${payload.reason === 'Unassigned' ? 'unassigned' : 'assigned'}${typeof payload.reason === 'string' ? ` (${str(payload.reason, 50)})` : ''}: ${title}`
      : undefined;
    if (!summary) return undefined;
    return { contact_id: uuid(deal.contact_id), deal_id: uuid(deal.id), company_id: uuid(deal.company_id), summary, data };
  }
  if ((type === 'task.created' || type === 'task.completed') && isObject(task)) {
    const summary = `${type === 'task.created' ? 'Task created' : 'Task completed'}: ${snippet(task.title)}`;
    return { contact_id: uuid(task.contact_id), deal_id: uuid(task.deal_id), company_id: uuid(task.company_id), summary, data: pick(task, ['id', 'title', 'due_at', 'assignee_id', 'done']) };
  }
  if (type === 'note.created' && isObject(note)) {
    return { contact_id: uuid(note.contact_id), deal_id: uuid(note.deal_id), company_id: uuid(note.company_id), summary: `Note: ${snippet(note.body)}`, data: pick(note, ['id', 'body', 'author_id']) };
  }
  return undefined;
}

function messagingEntry(type: string, payload: Obj): Mapped | undefined {
  const { message } = payload;
  if ((type !== 'message.sent' && type !== 'message.received') || !isObject(message)) return undefined;
  const label = type === 'message.sent' ? 'Message sent' : 'Message received';
  const content = snippet(message.content);
  const data = pick(message, ['id', 'conversation_id', 'channel_account_id', 'direction', 'status', 'content', 'created_at']);
  return { contact_id: uuid(message.contact_id), deal_id: null, summary: content ? `${label}: ${content}` : label, data };
}

// The calls and re-engagement producers do not exist yet: take the record under its likely key,
// or the payload itself, and require a contact id.
function recordOf(payload: Obj, keys: string[]): Obj {
  for (const key of keys) if (isObject(payload[key])) return payload[key] as Obj;
  return payload;
}

function callEntry(type: string, payload: Obj): Mapped | undefined {
  if (type !== 'call.analyzed') return undefined;
  const call = recordOf(payload, ['call', 'call_record']);
  const summaryText = snippet(call.summary ?? call.analysis_summary);
  const data = pick(call, ['id', 'direction', 'duration_seconds', 'call_timestamp', 'customer_phone', 'summary', 'sentiment']);
  return { contact_id: uuid(call.contact_id), deal_id: uuid(call.deal_id), summary: summaryText ? `Call analyzed: ${summaryText}` : 'Call analyzed', data };
}

function nudgeEntry(type: string, payload: Obj): Mapped | undefined {
  if (type !== 'nudge.sent') return undefined;
  const nudge = recordOf(payload, ['nudge']);
  const content = snippet(nudge.content ?? nudge.message);
  const data = pick(nudge, ['id', 'conversation_id', 'content', 'status']);
  return { contact_id: uuid(nudge.contact_id), deal_id: null, summary: content ? `Re-engagement nudge sent: ${content}` : 'Re-engagement nudge sent', data };
}

// An event of a shape we do not know is skipped (undefined), never an error: the consumer must
// not stall on another context's change of payload.
export function timelineEntryOf(event: DomainEvent): TimelineEntry | undefined {
  if (!isObject(event.payload) || typeof event.type !== 'string') return undefined;
  const payload = event.payload as Obj;
  const mapped =
    event.source === 'crm' ? crmEntry(event.type, payload)
    : event.source === 'messaging' ? messagingEntry(event.type, payload)
    : event.source === 'calls' ? callEntry(event.type, payload)
    : event.source === 'reengagement' ? nudgeEntry(event.type, payload)
    : undefined;
  if (!mapped) return undefined;
  const company_id = mapped.company_id ?? null;
  if (mapped.contact_id === null && mapped.deal_id === null && company_id === null) return undefined;
  const occurred = Date.parse(event.occurredAt);
  return {
    event_id: event.id,
    type: event.type.slice(0, 100),
    source: event.source.slice(0, 50),
    occurred_at: Number.isNaN(occurred) ? new Date().toISOString() : new Date(occurred).toISOString(),
    actor_id: uuid(payload.actor_id),
    ...mapped,
    company_id,
    summary: mapped.summary.slice(0, 500),
  };
}

// Which deals an entry counts as activity for (deal auto-reassignment looks at last_activity_at):
// a note or task on a deal, or a conversation or call with the deal's contact.
export function activityTarget(entry: TimelineEntry): { deal_id: string | null; contact_id: string | null } | undefined {
  if (entry.source === 'messaging' || entry.source === 'calls') return entry.contact_id ? { deal_id: null, contact_id: entry.contact_id } : undefined;
  if (['note.created', 'task.created', 'task.completed'].includes(entry.type) && entry.deal_id) return { deal_id: entry.deal_id, contact_id: null };
  return undefined;
}
