import { checkTemplate, DomainError, renderTemplate, ValidationFailed } from '@engage/shared-kernel';

export const MEDIA_KINDS = ['image', 'video', 'document'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];
// The channel kinds a broadcast goes out on (§1: SMS is for broadcasts and sequences).
export const BROADCAST_KINDS = ['chat_app', 'sms'] as const;
export type BroadcastKind = (typeof BROADCAST_KINDS)[number];

// Texts as the channels take them: the chat app's 4,096 characters, an SMS's 1,600 (ten parts).
export const MAX_TEXT: Record<BroadcastKind, number> = { chat_app: 4096, sms: 1600 };
const MAX_URL = 2048;

export interface Content {
  text: string;
  mediaUrl: string | null;
  mediaKind: MediaKind | null;
}

// The contact fields a text may name: {{contact.first_name}}, {{contact.custom_fields.<key>}}.
const CONTACT_FIELDS = ['id', 'first_name', 'last_name', 'phones', 'emails', 'tags', 'description', 'source', 'opt_in_status', 'created_at'];
const CUSTOM_FIELD = /^contact\.custom_fields\.[A-Za-z0-9_-]{1,100}$/;
export const contactFieldAllowed = (field: string) =>
  CUSTOM_FIELD.test(field) || (field.startsWith('contact.') && CONTACT_FIELDS.includes(field.slice('contact.'.length)));

const invalid = (path: string, problem: string) => ValidationFailed('campaigns.invalid_content', `${path}: ${problem}`, { path });

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// A text with its placeholders checked (each names a contact field; 400 naming the path otherwise).
export function parseText(value: unknown, path: string, kind: BroadcastKind): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(path, 'is required: a non-empty text');
  const max = MAX_TEXT[kind];
  if ([...value].length > max) throw invalid(path, `must be at most ${max} characters on a ${kind} account`);
  if (value.includes('\u0000')) throw invalid(path, 'must not contain NUL characters');
  checkTemplate(value, path, contactFieldAllowed, 'campaigns.invalid_content');
  return value;
}

// A broadcast's content for the account's kind: SMS carries text only (422).
export function parseContent(value: unknown, kind: BroadcastKind, path = 'content'): Content {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object {text, media_url?, media_kind?}');
  const extra = Object.keys(value).find((key) => !['text', 'media_url', 'media_kind'].includes(key));
  if (extra !== undefined) throw invalid(`${path}.${extra.slice(0, 64)}`, 'unknown key; allowed: text, media_url, media_kind');
  const text = parseText(value.text, `${path}.text`, kind);
  const mediaUrl = value.media_url ?? null;
  const mediaKind = value.media_kind ?? null;
  if (mediaUrl !== null) {
    if (typeof mediaUrl !== 'string' || mediaUrl.length > MAX_URL || !isHttpsUrl(mediaUrl)) {
      throw invalid(`${path}.media_url`, `must be an https address of at most ${MAX_URL} characters`);
    }
  }
  if (mediaKind !== null && !(MEDIA_KINDS as readonly unknown[]).includes(mediaKind))
    throw invalid(`${path}.media_kind`, `must be one of ${MEDIA_KINDS.join(', ')}`);
  if (mediaKind !== null && mediaUrl === null) throw invalid(`${path}.media_kind`, 'needs media_url');
  if (kind === 'sms' && mediaUrl !== null)
    throw new DomainError('unprocessable', 'campaigns.sms_no_media', 'SMS channel accounts send text only: remove media_url');
  return { text, mediaUrl: mediaUrl as string | null, mediaKind: mediaKind as MediaKind | null };
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

// Whether the text names any field: then each recipient gets a text of their own (one provider call
// each); else every recipient gets the same text and the queue puts several in one call.
export const isPersonalised = (text: string) => checkTemplate(text, 'text', () => true).length > 0;

// The text for one contact (a row as crm_campaign_contacts or /rest/v1/contacts gives it).
export function renderFor(text: string, contact: Record<string, unknown> | null): string {
  return renderTemplate(text, (field) => {
    if (!contact || !field.startsWith('contact.')) return undefined;
    const [, name, key] = field.split('.', 3);
    if (name === 'custom_fields') {
      const custom = contact.custom_fields;
      return isPlainObject(custom) && key !== undefined ? custom[key] : undefined;
    }
    return contact[name];
  });
}
