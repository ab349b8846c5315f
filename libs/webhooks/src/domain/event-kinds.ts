// The event kinds of §6 a webhook may subscribe to are those the composed contexts declare with a
// webhook contract (the event catalogue); this context names none of them.

// Sent by the test action only; not subscribable.
export const TEST_EVENT_KIND = 'webhook.test';

// The delivery body, serialised once when the delivery is created so every attempt sends (and
// signs) the same bytes.
export function deliveryBody(kind: string, occurredAt: string, data: Record<string, unknown>): string {
  return JSON.stringify({ event: kind, timestamp: occurredAt, data });
}
