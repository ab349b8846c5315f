import { DomainError } from '@engage/shared-kernel';

export const CONVERSATION_STATUSES = ['OPEN', 'PENDING', 'SNOOZED', 'RESOLVED'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export const MESSAGE_STATUSES = ['PENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const CHANNEL_KINDS = ['chat_app', 'instagram', 'messenger', 'email', 'sms'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const isConversationStatus = (v: unknown): v is ConversationStatus => typeof v === 'string' && (CONVERSATION_STATUSES as readonly string[]).includes(v);
export const isChannelKind = (v: unknown): v is ChannelKind => typeof v === 'string' && (CHANNEL_KINDS as readonly string[]).includes(v);

// Delivery progresses SENT -> DELIVERED -> READ; a late "delivered" after "read" changes nothing.
// FAILED is accepted only before delivery (a message that was read did arrive).
const RANK: Record<MessageStatus, number> = { PENDING: 0, SENT: 1, DELIVERED: 2, READ: 3, FAILED: 1.5 };

export function canMoveMessage(from: MessageStatus, to: MessageStatus): boolean {
  if (from === to) return false;
  if (from === 'FAILED') return false;
  if (to === 'FAILED') return from === 'PENDING' || from === 'SENT';
  return RANK[to] > RANK[from];
}

// Any status may follow any other; SNOOZED needs a future until time.
export function parseStatusChange(status: unknown, until: unknown, now = new Date()): { status: ConversationStatus; snoozedUntil: Date | null } {
  if (!isConversationStatus(status)) throw new DomainError('validation', 'validation_failed', `status must be one of ${CONVERSATION_STATUSES.join(', ')}`);
  if (status !== 'SNOOZED') {
    if (until !== undefined && until !== null) throw new DomainError('validation', 'validation_failed', 'snoozed_until is only allowed with status SNOOZED');
    return { status, snoozedUntil: null };
  }
  const date = typeof until === 'string' ? new Date(until) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new DomainError('validation', 'validation_failed', 'SNOOZED needs snoozed_until, an ISO timestamp');
  if (date.getTime() <= now.getTime()) throw new DomainError('validation', 'validation_failed', 'snoozed_until must be in the future');
  return { status, snoozedUntil: date };
}
