import { COMMON_COLUMNS, column, declareTable, definePermission, DomainError, isUuid, type RowOf, type ViewOf } from '@engage/shared-kernel';

// Scheduled sends ("send later"): a member's reply stored now and sent at `send_at` by the
// scheduled-send pass, as that member's reply (docs/messaging.md, "Scheduled sends").
// Plain rules: no I/O, the clock is the caller's.

export const SCHEDULED_MESSAGE_STATUSES = ['scheduled', 'sending', 'sent', 'failed', 'cancelled', 'cancelled_by_reply'] as const;
export type ScheduledMessageStatus = (typeof SCHEDULED_MESSAGE_STATUSES)[number];
export const isScheduledMessageStatus = (value: unknown): value is ScheduledMessageStatus =>
  typeof value === 'string' && (SCHEDULED_MESSAGE_STATUSES as readonly string[]).includes(value);

// Members who answer customers may schedule an answer (an API key has no author to send as).
export const SCHEDULED_MESSAGES_MANAGE = definePermission('messaging.scheduled_messages.manage', ['OWNER', 'ADMIN', 'AGENT']);

export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3_600_000;
export const MAX_TEXT_CHARACTERS = 4096;
export const MAX_MEDIA_URLS = 10;
export const MAX_MEDIA_URL_LENGTH = 2048;

// Why a claimed send has no known outcome: its process stopped after claiming it and no message of it
// says it went out. It is never sent again by itself.
export const OUTCOME_UNKNOWN = 'outcome_unknown';

const { uuid, text, at, atOrNull, textOrNull } = COMMON_COLUMNS;

export const SCHEDULED_MESSAGES = declareTable({
  name: 'scheduled_messages',
  columns: {
    id: uuid,
    organization_id: uuid,
    conversation_id: uuid,
    status: text,
    send_at: at,
    text,
    media_urls: column('text[]'),
    cancel_on_reply: column('boolean'),
    // The member who wrote it; it goes out as their reply.
    created_by: uuid,
    created_at: at,
    updated_at: at,
    // When a send took it (status `sending`); the pass settles sends stale past this.
    claimed_at: column('timestamptz', { nullable: true, api: 'hidden' }),
    sent_at: atOrNull,
    // The messages its send wrote (whatever became of them).
    sent_message_ids: column('text[]'),
    // Why it failed (`failed` only): the channel's refusal, the provider's words or outcome_unknown.
    error: textOrNull,
  },
});

export type ScheduledMessageRow = RowOf<typeof SCHEDULED_MESSAGES>;
export type ScheduledMessageView = ViewOf<typeof SCHEDULED_MESSAGES>;

export interface NewScheduledMessage {
  text: string;
  mediaUrls: string[];
  sendAt: Date;
  cancelOnReply: boolean;
}

export interface ScheduledMessageChange {
  text?: string;
  sendAt?: Date;
}

const invalid = (message: string, field: string) => new DomainError('validation', 'validation_failed', message, { field });
const characterCount = (value: string) => [...value].length;
// An ISO 8601 instant with its offset: a time without one would be read in the server's zone.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

function parseText(value: unknown): string {
  if (typeof value !== 'string') throw invalid('text must be a string', 'text');
  if (value.trim().length === 0) throw invalid('text must not be empty', 'text');
  if (value.includes('\u0000')) throw invalid('text must not contain NUL characters', 'text');
  if (characterCount(value) > MAX_TEXT_CHARACTERS) throw invalid(`text must be at most ${MAX_TEXT_CHARACTERS} characters`, 'text');
  return value;
}

function parseMediaUrls(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('media_urls must be an array of http(s) addresses', 'media_urls');
  if (value.length > MAX_MEDIA_URLS) throw invalid(`media_urls must hold at most ${MAX_MEDIA_URLS} addresses`, 'media_urls');
  return value.map((url) => {
    if (typeof url !== 'string' || !/^https?:\/\/\S+$/i.test(url) || url.includes('\u0000')) {
      throw invalid('media_urls must be an array of http(s) addresses', 'media_urls');
    }
    if (url.length > MAX_MEDIA_URL_LENGTH) throw invalid(`each of media_urls must be at most ${MAX_MEDIA_URL_LENGTH} characters`, 'media_urls');
    return url;
  });
}

// In the future and at most 30 days ahead of `now`.
export function parseSendAt(value: unknown, now: Date): Date {
  if (typeof value !== 'string' || !INSTANT.test(value)) {
    throw invalid('send_at must be an ISO 8601 date and time with its offset (2026-12-01T09:00:00Z)', 'send_at');
  }
  const sendAt = new Date(value);
  if (Number.isNaN(sendAt.getTime())) throw invalid('send_at is not a valid date and time', 'send_at');
  if (sendAt.getTime() <= now.getTime()) throw invalid('send_at must be in the future', 'send_at');
  if (sendAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) throw invalid('send_at must be at most 30 days ahead', 'send_at');
  return sendAt;
}

const plainObject = (input: unknown): Record<string, unknown> => {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid('the body must be a JSON object', 'body');
  return input as Record<string, unknown>;
};

const refuseUnknown = (input: Record<string, unknown>, known: readonly string[]) => {
  const unknown = Object.keys(input).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw invalid(`unknown field: ${unknown.join(', ')}`, unknown[0]);
};

export function parseNewScheduledMessage(input: unknown, now: Date): NewScheduledMessage {
  const body = plainObject(input);
  refuseUnknown(body, ['text', 'media_urls', 'send_at', 'cancel_on_reply']);
  if (body.text === undefined || body.text === null) throw invalid('Missing required field: text', 'text');
  if (body.send_at === undefined || body.send_at === null) throw invalid('Missing required field: send_at', 'send_at');
  if (body.cancel_on_reply !== undefined && typeof body.cancel_on_reply !== 'boolean') throw invalid('cancel_on_reply must be a boolean', 'cancel_on_reply');
  return {
    text: parseText(body.text),
    mediaUrls: parseMediaUrls(body.media_urls),
    sendAt: parseSendAt(body.send_at, now),
    cancelOnReply: body.cancel_on_reply !== false,
  };
}

export function parseScheduledMessageChange(input: unknown, now: Date): ScheduledMessageChange {
  const body = plainObject(input);
  refuseUnknown(body, ['text', 'send_at']);
  if (body.text === undefined && body.send_at === undefined) throw invalid('give text or send_at', 'body');
  return {
    ...(body.text !== undefined ? { text: parseText(body.text) } : {}),
    ...(body.send_at !== undefined ? { sendAt: parseSendAt(body.send_at, now) } : {}),
  };
}

export interface ScheduledMessageQuery {
  status?: ScheduledMessageStatus;
  conversationId?: string;
  page: number;
  limit: number;
}

export function parseScheduledMessageQuery(input: { status?: unknown; conversation_id?: unknown; page?: unknown; limit?: unknown }): ScheduledMessageQuery {
  if (input.status !== undefined && !isScheduledMessageStatus(input.status)) {
    throw invalid(`status must be one of ${SCHEDULED_MESSAGE_STATUSES.join(', ')}`, 'status');
  }
  if (input.conversation_id !== undefined && !isUuid(input.conversation_id)) throw invalid('conversation_id must be a UUID', 'conversation_id');
  const whole = (value: unknown, field: string, fallback: number, max: number) => {
    if (value === undefined) return fallback;
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > max) throw invalid(`${field} must be an integer from 1 to ${max}`, field);
    return n;
  };
  return {
    status: input.status as ScheduledMessageStatus | undefined,
    conversationId: (input.conversation_id as string | undefined)?.toLowerCase(),
    page: whole(input.page, 'page', 1, 1_000_000),
    limit: whole(input.limit, 'limit', 50, 200),
  };
}

// What a PATCH or DELETE may do to a scheduled message in this status.
export function notScheduled(id: string, status: string): DomainError {
  const message =
    status === 'sending' || status === 'sent'
      ? `Scheduled message ${id} is ${status === 'sent' ? 'already sent' : 'being sent'}`
      : `Scheduled message ${id} is ${status.replace(/_/g, ' ')}, no longer scheduled`;
  return new DomainError('conflict', 'scheduled_message.not_scheduled', message, { id, status });
}

// A DELETE of a message already cancelled (by a member or a reply) changes nothing and succeeds.
export const isCancelled = (status: string) => status === 'cancelled' || status === 'cancelled_by_reply';
