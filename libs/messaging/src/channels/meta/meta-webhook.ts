import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '@engage/shared-kernel';

// What the worker gets from a Meta webhook event (Messenger or Instagram), one per customer action.
// `user` is the customer's page-scoped id (the recipient of an echo, the sender otherwise).
export type SocialPayload =
  | {
      type: 'social_message';
      id: string;
      user: string;
      echo: boolean;
      text: string;
      media: { url: string; kind: string }[];
      reply_to: string | null;
      timestamp: string | null;
      postback: string | null;
    }
  | { type: 'social_receipt'; user: string; status: 'delivered' | 'read'; mids: string[]; watermark: string | null };

export interface MetaEvent {
  kind: 'messenger' | 'instagram';
  accountId: string;
  payload: SocialPayload;
}

export const isSocialPayload = (payload: { type?: unknown } | null | undefined): payload is SocialPayload =>
  payload?.type === 'social_message' || payload?.type === 'social_receipt';

// `sha256=` + hex HMAC-SHA256 of the raw body with the app secret, compared in constant time.
export function metaSignatureMatches(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const hex = header.slice('sha256='.length);
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), createHmac('sha256', secret).update(raw).digest());
}

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);
const OBJECT_KIND: Record<string, MetaEvent['kind']> = { page: 'messenger', instagram: 'instagram' };
const MEDIA_KIND: Record<string, string> = { image: 'image', video: 'video', audio: 'audio', file: 'document' };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null);
// Ids are numeric strings at Meta; anything else (or too long) is not an id.
const id = (v: unknown): string | null => ((typeof v === 'string' || typeof v === 'number') && /^[\w.:-]{1,100}$/.test(String(v)) ? String(v) : null);
// PostgreSQL cannot store NUL; a long text is cut rather than the event lost.
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.replaceAll('\u0000', '').slice(0, max) : '');
const time = (v: unknown): string | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? new Date(v).toISOString() : null);

// The events of a verified webhook body. Shapes Meta documents but we do not use (reactions,
// referrals, ...) are skipped; a body that is not a Meta webhook at all is a 400.
export function parseMetaWebhook(body: unknown): MetaEvent[] {
  const b = obj(body);
  if (!b || !Array.isArray(b.entry)) throw invalid('Not a Meta webhook body: `object` and `entry` expected');
  const kind = OBJECT_KIND[String(b.object)];
  if (!kind) return [];
  const events: MetaEvent[] = [];
  for (const rawEntry of b.entry) {
    const entry = obj(rawEntry);
    const accountId = id(entry?.id);
    if (!entry || !accountId || !Array.isArray(entry.messaging)) continue;
    for (const raw of entry.messaging) {
      const payload = parseMessaging(obj(raw));
      if (payload) events.push({ kind, accountId, payload });
    }
  }
  return events;
}

function parseMessaging(m: Obj | null): SocialPayload | null {
  if (!m) return null;
  const sender = id(obj(m.sender)?.id);
  const recipient = id(obj(m.recipient)?.id);
  const timestamp = time(m.timestamp);
  const message = obj(m.message);
  if (message) {
    const echo = message.is_echo === true;
    const user = echo ? recipient : sender;
    const mid = id(message.mid);
    if (!user || !mid) return null;
    const media = (Array.isArray(message.attachments) ? message.attachments : []).slice(0, 10).flatMap((a) => {
      const url = text(obj(obj(a)?.payload)?.url, 2048);
      return /^https?:\/\/\S+$/i.test(url) ? [{ url, kind: MEDIA_KIND[String(obj(a)?.type)] ?? 'document' }] : [];
    });
    const body = text(message.text, 8192);
    if (body === '' && media.length === 0) return null;
    return { type: 'social_message', id: mid, user, echo, text: body, media, reply_to: id(obj(message.reply_to)?.mid), timestamp, postback: null };
  }
  const postback = obj(m.postback);
  if (postback && sender) {
    const mid = id(postback.mid) ?? `postback:${sender}:${String(m.timestamp)}`;
    const title = text(postback.title, 1000) || text(postback.payload, 1000);
    const value = text(postback.payload, 1000) || null;
    return { type: 'social_message', id: mid, user: sender, echo: false, text: title, media: [], reply_to: null, timestamp, postback: value };
  }
  for (const status of ['delivery', 'read'] as const) {
    const receipt = obj(m[status]);
    if (!receipt || !sender) continue;
    const mids = (Array.isArray(receipt.mids) ? receipt.mids : [receipt.mid])
      .map(id)
      .filter((v): v is string => v !== null)
      .slice(0, 100);
    const watermark = time(receipt.watermark);
    if (mids.length === 0 && !watermark) return null;
    return { type: 'social_receipt', user: sender, status: status === 'delivery' ? 'delivered' : 'read', mids, watermark };
  }
  return null;
}
