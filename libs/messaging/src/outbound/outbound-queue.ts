import { definePermission, DomainError, isUuid } from '@engage/shared-kernel';
import { isMessageOrigin, type MessageOrigin } from '../domain/message-origin';
import type { MediaKind } from '../domain/media';
import { characterCount, cleanRecipient, MAX_MESSAGE_CHARACTERS } from '../domain/send-request';

// The paced queue as the API shows and steers it (docs/messaging.md, "The queue's endpoints"): who
// may change an account's pacing or pause it, and the checks of what the endpoints take. Plain
// rules: no I/O.

// Pacing and pause change what every automated sender of the account does: owners and admins (and
// the organization's API key, as for the rest of a channel account's settings).
export const OUTBOUND_QUEUE_MANAGE = definePermission('messaging.outbound_queue.manage', ['OWNER', 'ADMIN']);

export const MEDIA_KINDS = ['image', 'video', 'document'] as const satisfies readonly MediaKind[];
export const QUEUE_ITEM_STATUSES = ['QUEUED', 'PENDING'] as const;
export type QueueItemStatus = (typeof QUEUE_ITEM_STATUSES)[number];

export const MAX_RECIPIENT_CHARACTERS = 64;
export const MAX_MEDIA_URL_LENGTH = 2048;
export const MAX_PAUSE_REASON_CHARACTERS = 200;
export const MAX_ITEMS_LIMIT = 200;
// Expected times are simulated message by message: the deepest item a page may start at.
export const MAX_ITEMS_OFFSET = 10_000;

const invalid = (field: string, message: string) => new DomainError('validation', 'validation_failed', `${field} ${message}`, { field });
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
// NUL cannot be stored in a text column; the other control characters (but tab and newlines) have no place in a reason.
const hasControl = (text: string) =>
  [...text].some((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && c !== '\t' && c !== '\n' && c !== '\r') || code === 0x7f;
  });

export type QueuedSendRecipient = { to: string } | { contactId: string } | { conversationId: string };

export interface QueuedSendInput {
  channelAccountId: string;
  recipient: QueuedSendRecipient;
  text: string;
  mediaUrl: string | null;
  mediaKind: MediaKind | null;
}

const RECIPIENT_FIELDS = ['to', 'contact_id', 'conversation_id'] as const;

// POST /functions/v1/messaging/outbound: every field checked, a 400 naming the first wrong one.
export function parseQueuedSend(body: unknown): QueuedSendInput {
  if (!isRecord(body)) throw invalid('body', 'must be a JSON object');
  const channelAccountId = body.channel_account_id;
  if (channelAccountId === undefined || channelAccountId === null) throw invalid('channel_account_id', 'is required');
  if (!isUuid(channelAccountId)) throw invalid('channel_account_id', 'must be a UUID');
  const given = RECIPIENT_FIELDS.filter((field) => body[field] !== undefined && body[field] !== null);
  if (given.length === 0) throw invalid('to', 'is required: give one of to, contact_id or conversation_id');
  if (given.length > 1) throw invalid(given[1], `cannot be given with ${given[0]}: give one of to, contact_id or conversation_id`);
  const text = body.text;
  if (text === undefined || text === null) throw invalid('text', 'is required');
  if (typeof text !== 'string' || text.trim().length === 0) throw invalid('text', 'must be a non-empty string');
  if (characterCount(text) > MAX_MESSAGE_CHARACTERS) throw invalid('text', `must be at most ${MAX_MESSAGE_CHARACTERS} characters`);
  if (text.includes('\u0000')) throw invalid('text', 'must not contain NUL characters');
  const mediaUrl = parseMediaUrl(body.media_url);
  const mediaKind = body.media_kind ?? null;
  if (mediaKind !== null && !(MEDIA_KINDS as readonly unknown[]).includes(mediaKind)) throw invalid('media_kind', `must be one of ${MEDIA_KINDS.join(', ')}`);
  if (mediaKind !== null && mediaUrl === null) throw invalid('media_kind', 'is only allowed with media_url');
  return {
    channelAccountId: channelAccountId.toLowerCase(),
    recipient: recipientOf(given[0], body[given[0]]),
    text,
    mediaUrl,
    mediaKind: mediaKind as MediaKind | null,
  };
}

function recipientOf(field: (typeof RECIPIENT_FIELDS)[number], value: unknown): QueuedSendRecipient {
  if (field === 'to') {
    if (typeof value !== 'string' || value.length > MAX_RECIPIENT_CHARACTERS)
      throw invalid('to', `must be a phone number of at most ${MAX_RECIPIENT_CHARACTERS} characters`);
    try {
      return { to: cleanRecipient(value).cleaned };
    } catch (error) {
      if (error instanceof DomainError) throw invalid('to', 'must be a phone number (6 to 15 digits)');
      throw error;
    }
  }
  if (!isUuid(value)) throw invalid(field, 'must be a UUID');
  return field === 'contact_id' ? { contactId: value.toLowerCase() } : { conversationId: value.toLowerCase() };
}

function parseMediaUrl(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_MEDIA_URL_LENGTH || !/^https?:\/\/[^\s/]+\S*$/i.test(value)) {
    throw invalid('media_url', `must be an http(s) address of at most ${MAX_MEDIA_URL_LENGTH} characters`);
  }
  return value;
}

// POST .../channel-accounts/<id>/pause {reason?}: what paused_reason says ('manual' or 'manual: <reason>').
export function manualPauseReason(body: unknown): string {
  if (body === undefined || body === null) return 'manual';
  if (!isRecord(body)) throw invalid('body', 'must be a JSON object');
  for (const key of Object.keys(body)) if (key !== 'reason') throw invalid(key, 'is not a known field (reason)');
  const reason = body.reason;
  if (reason === undefined || reason === null) return 'manual';
  if (typeof reason !== 'string' || reason.trim().length === 0 || characterCount(reason) > MAX_PAUSE_REASON_CHARACTERS || hasControl(reason)) {
    throw invalid('reason', `must be 1 to ${MAX_PAUSE_REASON_CHARACTERS} characters of text`);
  }
  return `manual: ${reason.trim()}`;
}

export interface QueueItemsQuery {
  channelAccountId: string | null;
  origin: MessageOrigin | null;
  status: QueueItemStatus;
  limit: number;
  offset: number;
}

const wholeNumber = (field: string, value: unknown, fallback: number, min: number, max: number): number => {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalid(field, `must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
};

// GET .../outbound-queue/items?channel_account_id&origin&status&limit&offset (query strings as given).
export function parseQueueItemsQuery(query: Record<string, unknown>): QueueItemsQuery {
  for (const key of Object.keys(query)) {
    if (!['channel_account_id', 'origin', 'status', 'limit', 'offset'].includes(key)) {
      throw invalid(key, 'is not a known parameter (channel_account_id, origin, status, limit, offset)');
    }
  }
  const { channel_account_id: account, origin, status } = query;
  if (account !== undefined && !isUuid(account)) throw invalid('channel_account_id', 'must be a UUID');
  if (origin !== undefined && (!isMessageOrigin(origin) || origin === 'customer')) throw invalid('origin', 'must be the origin of an outbound message');
  if (status !== undefined && !(QUEUE_ITEM_STATUSES as readonly unknown[]).includes(status)) {
    throw invalid('status', `must be one of ${QUEUE_ITEM_STATUSES.join(', ')}`);
  }
  return {
    channelAccountId: account === undefined ? null : (account as string).toLowerCase(),
    origin: (origin as MessageOrigin | undefined) ?? null,
    status: (status as QueueItemStatus | undefined) ?? 'QUEUED',
    limit: wholeNumber('limit', query.limit, 50, 1, MAX_ITEMS_LIMIT),
    offset: wholeNumber('offset', query.offset, 0, 0, MAX_ITEMS_OFFSET),
  };
}
