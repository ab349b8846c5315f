import { DomainError, isUuid } from '@engage/shared-kernel';
import { API, type MessageAuthor } from './message-origin';

export const MAX_MESSAGE_CHARACTERS = 4096;
const MAX_MEDIA = 10;

export interface CrossChannelResponse {
  originalChannelId: string;
  originalChannelType: string;
  responseChannelId: string;
}

export interface SendRequest {
  to: string | null;
  message: string;
  organizationId: string;
  conversationId: string | null;
  contactName: string | null;
  from: string | null;
  mediaUrls: string[];
  crossChannel: CrossChannelResponse | null;
  // Who wrote it: the API for a request to chat-lite-send; the inbox or an automated sender for the
  // replies that go out through the chat app's send.
  author: MessageAuthor;
  // Set by automated senders only (never from a request body).
  metadata?: Record<string, string>;
}

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);

// Characters as a reader counts them (code points), not UTF-16 units or bytes.
export const characterCount = (text: string): number => Array.from(text).length;

const optionalString = (body: Record<string, unknown>, field: string, max: number): string | null => {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (characterCount(value) > max) throw invalid(`${field} must be at most ${max} characters`);
  return value;
};

// §4.1 step 1. `to` may be omitted only for a cross-channel send that names the conversation.
export function parseSendRequest(body: unknown): SendRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('Request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const crossChannel = parseCrossChannel(b.crossChannelResponse);
  const conversationId = optionalString(b, 'conversationId', 36);
  if (conversationId !== null && !isUuid(conversationId)) throw invalid('conversationId must be a UUID');
  const to = optionalString(b, 'to', 100);
  if ((to === null || to.trim() === '') && !(crossChannel && conversationId)) throw invalid('Missing required field: to');
  if (b.message === undefined || b.message === null || b.message === '') throw invalid('Missing required field: message');
  if (typeof b.message !== 'string') throw invalid('message must be a string');
  if (characterCount(b.message) > MAX_MESSAGE_CHARACTERS) throw invalid(`message must be at most ${MAX_MESSAGE_CHARACTERS} characters`);
  if (b.organizationId === undefined || b.organizationId === null || b.organizationId === '') throw invalid('Missing required field: organizationId');
  if (!isUuid(b.organizationId)) throw invalid('organizationId must be a UUID');
  return {
    to: to === null || to.trim() === '' ? null : to.trim(),
    message: b.message,
    organizationId: b.organizationId.toLowerCase(),
    conversationId: conversationId?.toLowerCase() ?? null,
    contactName: optionalString(b, 'contactName', 100)?.trim() || null,
    from: optionalString(b, 'from', 200),
    mediaUrls: parseMediaUrls(b.media_urls),
    crossChannel,
    author: API,
  };
}

function parseMediaUrls(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('media_urls must be an array of strings');
  if (value.length > MAX_MEDIA) throw invalid(`media_urls may hold at most ${MAX_MEDIA} addresses`);
  return value.map((url) => {
    if (typeof url !== 'string' || url.length > 2048 || !/^https?:\/\/\S+$/i.test(url))
      throw invalid('media_urls must hold http(s) addresses of at most 2048 characters');
    return url;
  });
}

function parseCrossChannel(value: unknown): CrossChannelResponse | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('crossChannelResponse must be an object');
  const v = value as Record<string, unknown>;
  if (!isUuid(v.originalChannelId) || !isUuid(v.responseChannelId)) throw invalid('crossChannelResponse.originalChannelId and responseChannelId must be UUIDs');
  if (typeof v.originalChannelType !== 'string' || v.originalChannelType.length === 0 || v.originalChannelType.length > 50) {
    throw invalid('crossChannelResponse.originalChannelType must be a channel kind name');
  }
  return {
    originalChannelId: v.originalChannelId.toLowerCase(),
    originalChannelType: v.originalChannelType,
    responseChannelId: v.responseChannelId.toLowerCase(),
  };
}

// §4.1 step 2: "201001234567@s.whatsapp.net" -> "201001234567"; the provider wants digits only.
export function cleanRecipient(to: string): { cleaned: string; digits: string } {
  const cleaned = to.replace(/@s\..*$/i, '').trim();
  const digits = cleaned.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) throw invalid(`"${to.slice(0, 40)}" is not a phone number`);
  return { cleaned, digits };
}
