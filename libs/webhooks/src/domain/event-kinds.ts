// The event kinds of §6 a webhook may subscribe to, and where each kind's record sits in the
// domain event payload (payload convention: `{ <entity>: <record>, actor_id, ...extra }`).
export const WEBHOOK_EVENT_KINDS = [
  'contact.created', 'contact.updated', 'contact.assigned',
  'deal.created', 'deal.updated', 'deal.stage.changed', 'deal.assigned',
  'conversation.created', 'conversation.assigned', 'conversation.status.changed',
  'message.received', 'message.sent', 'message.delivered', 'message.read', 'message.failed',
  'broadcast.response',
  'zoom.recording.completed',
] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

// Sent by the test action only; not subscribable.
export const TEST_EVENT_KIND = 'webhook.test';

// The contexts whose events may carry these kinds (the consumer subscribes to their topics).
export const WEBHOOK_EVENT_SOURCES = ['crm', 'messaging', 'meetings'] as const;

// broadcast.response: messaging emits the reply as `message` (the record is the inbound message);
// `response` is kept for a producer that follows §6's wording.
const RECORD_KEYS: Record<string, string[]> = { contact: ['contact'], deal: ['deal'], conversation: ['conversation'], message: ['message'], broadcast: ['response', 'message'], zoom: ['recording'] };

export const isWebhookEventKind = (value: string): value is WebhookEventKind => (WEBHOOK_EVENT_KINDS as readonly string[]).includes(value);

// `data` of a delivery: the record the event is about (payload.contact for contact.*, payload.deal
// for deal.*, payload.conversation, payload.message, payload.response (else payload.message) for broadcast.response,
// payload.recording for zoom.recording.completed). Extra facts of the event (from_stage, to_stage,
// previous_owner_id, reason, ...) are added under `changes` when present; actor_id is left out.
// A payload without that key is sent whole, minus actor_id.
export function deliveryData(kind: string, payload: Record<string, unknown>): Record<string, unknown> {
  const { actor_id: _actor, ...rest } = payload;
  const key = (RECORD_KEYS[kind.split('.')[0]] ?? []).find((candidate) => candidate in rest);
  const record = key ? rest[key] : undefined;
  if (!key || !record || typeof record !== 'object' || Array.isArray(record)) return rest;
  const { [key]: _record, ...extra } = rest;
  return Object.keys(extra).length > 0 ? { ...(record as Record<string, unknown>), changes: extra } : { ...(record as Record<string, unknown>) };
}

// The delivery body, serialised once when the delivery is created so every attempt sends (and
// signs) the same bytes.
export function deliveryBody(kind: string, occurredAt: string, data: Record<string, unknown>): string {
  return JSON.stringify({ event: kind, timestamp: occurredAt, data });
}
