import { DomainError } from '@engage/shared-kernel';

// What a provider posts to the inbound receiver (docs/messaging.md has examples).
export type InboundPayload =
  | {
      type: 'message';
      id: string;
      from: string;
      name: string | null;
      text: string;
      media: { url: string; kind: string }[];
      reply_to: string | null;
      timestamp: string | null;
    }
  | { type: 'status'; id: string; status: 'delivered' | 'read' | 'failed'; error: string | null };

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);
const str = (v: unknown, field: string, max: number, required: boolean): string | null => {
  if (v === undefined || v === null || v === '') {
    if (required) throw invalid(`Missing required field: ${field}`);
    return null;
  }
  if (typeof v !== 'string' || v.length > max) throw invalid(`${field} must be a string of at most ${max} characters`);
  // PostgreSQL text and jsonb cannot hold NUL: refused here with a clear message, not by the database.
  if (v.includes('\u0000')) throw invalid(`${field} must not contain NUL characters`);
  return v;
};

// Checked before the event is stored, so the worker only ever sees processable payloads.
export function parseInboundPayload(body: unknown): InboundPayload {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('Request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const id = str(b.id, 'id', 200, true) as string;
  if (b.type === 'status') {
    if (b.status !== 'delivered' && b.status !== 'read' && b.status !== 'failed') throw invalid('status must be delivered, read or failed');
    return { type: 'status', id, status: b.status, error: str(b.error, 'error', 1000, false) };
  }
  if (b.type !== 'message') throw invalid('type must be "message" or "status"');
  const from = str(b.from, 'from', 100, true) as string;
  if (from.replace(/@s\..*$/i, '').replace(/\D/g, '').length < 6) throw invalid('from must be a phone number');
  const text = str(b.text, 'text', 4096 * 2, false) ?? '';
  const media = b.media === undefined || b.media === null ? [] : b.media;
  if (!Array.isArray(media) || media.length > 10) throw invalid('media must be an array of at most 10 {url, kind}');
  const parsedMedia = media.map((m: unknown) => {
    const item = (m ?? {}) as Record<string, unknown>;
    const url = str(item.url, 'media.url', 2048, true) as string;
    if (!/^https?:\/\/\S+$/i.test(url)) throw invalid('media.url must be an http(s) address');
    return { url, kind: str(item.kind, 'media.kind', 20, false) ?? 'image' };
  });
  if (text === '' && parsedMedia.length === 0) throw invalid('a message needs text or media');
  return {
    type: 'message',
    id,
    from,
    name: str(b.name, 'name', 100, false),
    text,
    media: parsedMedia,
    reply_to: str(b.reply_to, 'reply_to', 200, false),
    timestamp: str(b.timestamp, 'timestamp', 40, false),
  };
}
