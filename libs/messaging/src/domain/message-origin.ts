import { DomainError, isUuid } from '@engage/shared-kernel';

// Who wrote a message (messages.origin, checked by messages_origin_known): the customer, an agent in
// the inbox, the API (chat-lite-send, directly or through the paced queue), a scheduled send, or an
// automation. origin_id names the scheduled message, rule, bot flow, sequence, broadcast or nudge.
export const MESSAGE_ORIGINS = ['customer', 'agent', 'api', 'api_queued', 'scheduled', 'rule', 'bot', 'sequence', 'broadcast', 'reengagement'] as const;
export type MessageOrigin = (typeof MESSAGE_ORIGINS)[number];

// Written by a person (or for one, through the API): these are agent replies for reports and the SLA
// (the SQL of 0050-record-message-origins lists the same four). The others are automated.
export const AGENT_REPLY_ORIGINS = ['agent', 'api', 'api_queued', 'scheduled'] as const satisfies readonly MessageOrigin[];

// The origins that wait in the paced send queue of their channel account (docs/messaging.md); the
// others go at once and count toward the account's caps.
export const QUEUED_ORIGINS = ['rule', 'bot', 'sequence', 'broadcast', 'reengagement', 'api_queued'] as const satisfies readonly MessageOrigin[];
export const isQueuedOrigin = (origin: MessageOrigin): boolean => (QUEUED_ORIGINS as readonly string[]).includes(origin);

// The origins that never name a source (messages_origin_id_applies).
const WITHOUT_SOURCE: readonly MessageOrigin[] = ['customer', 'agent', 'api'];

export interface MessageAuthor {
  origin: MessageOrigin;
  originId: string | null;
}

export const CUSTOMER: MessageAuthor = { origin: 'customer', originId: null };
export const AGENT: MessageAuthor = { origin: 'agent', originId: null };
export const API: MessageAuthor = { origin: 'api', originId: null };

export const isMessageOrigin = (value: unknown): value is MessageOrigin => typeof value === 'string' && (MESSAGE_ORIGINS as readonly string[]).includes(value);

// An outbound sender's author as given by another context: a known origin other than the
// customer's, and a UUID source only where the origin has one.
export function checkOutboundAuthor(author: unknown): MessageAuthor {
  const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);
  const given = (typeof author === 'object' && author !== null ? author : {}) as Partial<MessageAuthor>;
  if (!isMessageOrigin(given.origin) || given.origin === 'customer') {
    throw invalid(`origin must be one of ${MESSAGE_ORIGINS.filter((o) => o !== 'customer').join(', ')}`);
  }
  const originId = given.originId ?? null;
  if (originId !== null && !isUuid(originId)) throw invalid('originId must be a UUID');
  if (originId !== null && WITHOUT_SOURCE.includes(given.origin)) throw invalid(`a message of origin ${given.origin} names no originId`);
  return { origin: given.origin, originId: originId?.toLowerCase() ?? null };
}
