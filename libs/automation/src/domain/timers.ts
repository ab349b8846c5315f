import type { DomainEvent } from '@engage/shared-kernel';
import { TIMER_EVENTS } from './catalogue';

// The two conversation timers (docs/automation.md, "Timers"). Each has episodes: unanswered starts
// at a customer's message when none is open and ends at the business's next message (an agent's or
// an automation's); customer_silent starts at the business's message when none is open and ends at
// the customer's next message. A timer rule fires once per episode, `minutes` after it started.

export type TimerKind = (typeof TIMER_EVENTS)[number];

export interface TimerChange {
  conversationId: string;
  at: string;
  arm: TimerKind;
  end: TimerKind;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// What a message event does to its conversation's timers: a customer's message arms unanswered and
// ends customer_silent; a message the business sent (message.sent: the provider took it) the reverse.
export function timerChangeOf(event: Pick<DomainEvent, 'type' | 'payload' | 'occurredAt'>): TimerChange | undefined {
  const message = (event.payload as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null) return undefined;
  const { conversation_id: conversationId, direction } = message as { conversation_id?: unknown; direction?: unknown };
  if (typeof conversationId !== 'string' || !UUID.test(conversationId)) return undefined;
  const at = event.occurredAt;
  if (event.type === 'message.received' && direction === 'INBOUND') {
    return { conversationId: conversationId.toLowerCase(), at, arm: 'conversation.unanswered', end: 'conversation.customer_silent' };
  }
  if (event.type === 'message.sent' && direction === 'OUTBOUND') {
    return { conversationId: conversationId.toLowerCase(), at, arm: 'conversation.customer_silent', end: 'conversation.unanswered' };
  }
  return undefined;
}

export const isTimerEvent = (type: string): type is TimerKind => (TIMER_EVENTS as readonly string[]).includes(type);
