import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '@engage/shared-kernel';
import type { InboundPayload } from '../../inbound/inbound-payload';

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);

export interface SmsAccountInput {
  accountSid: string;
  authToken: string;
  fromNumber: string;
}

export const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
export const E164 = /^\+[1-9]\d{6,14}$/;
// A text of one send: the Messages API takes at most 1,600 characters (it splits them into segments).
export const SMS_MAX_CHARS = 1600;

// An SMS channel's setup fields (null for other kinds).
export function parseSmsAccount(kind: string, input: Record<string, unknown>): SmsAccountInput | null {
  if (kind !== 'sms') return null;
  const { account_sid: sid, auth_token: token, from_number: from } = input;
  if (typeof sid !== 'string' || !ACCOUNT_SID.test(sid)) {
    throw invalid('account_sid is required: the provider account sid, AC followed by 32 hexadecimal digits');
  }
  if (typeof token !== 'string' || !/^[\x21-\x7e]{16,128}$/.test(token)) {
    throw invalid('auth_token is required: the account auth token (16 to 128 printable characters)');
  }
  if (typeof from !== 'string' || !E164.test(from)) throw invalid('from_number is required: the sender number in E.164 form, e.g. +14155550100');
  return { accountSid: sid, authToken: token, fromNumber: from };
}

// The provider's request signature: base64 HMAC-SHA1, keyed with the account's auth token, of the
// full address requested followed by every POST parameter (sorted by name, then value) as name+value.
export function smsSignature(url: string, params: [string, string][], authToken: string): string {
  const sorted = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return createHmac('sha1', authToken)
    .update(url + sorted.map(([name, value]) => name + value).join(''))
    .digest('base64');
}

// The provider signs the address as it was given, with or without the scheme's default port (as
// its own validators do): both forms are accepted.
export function signedUrlForms(url: string): string[] {
  const match = /^(https?):\/\/([^/:?#]+)(?::(\d+))?(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme, host, port, rest] = match;
  const standard = scheme.toLowerCase() === 'https' ? '443' : '80';
  if (port === undefined) return [url, `${scheme}://${host}:${standard}${rest}`];
  return port === standard ? [url, `${scheme}://${host}${rest}`] : [url];
}

export function smsSignatureMatches(url: string, params: [string, string][], authToken: string, presented: string | undefined): boolean {
  if (!presented || presented.length > 200) return false;
  // Compared as sent (base64 text), so no other spelling of the same bytes passes.
  const given = Buffer.from(presented);
  let matches = false;
  for (const form of signedUrlForms(url)) {
    const expected = Buffer.from(smsSignature(form, params, authToken));
    // Every form is compared (no early exit), each in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matches = true;
  }
  return matches;
}

// How the provider's message statuses map to ours. Those before delivery change nothing here (the
// message is SENT once the provider accepted it), so their callbacks are acknowledged, not stored.
const STATUS: Record<string, 'delivered' | 'read' | 'failed' | null> = {
  accepted: null,
  scheduled: null,
  queued: null,
  sending: null,
  sent: null,
  receiving: null,
  received: null,
  delivered: 'delivered',
  read: 'read',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

// A signed callback's parameters as an inbound event (the chat app's shapes, so the inbound worker
// processes it as it does the chat app's: contact by phone, de-duplication by provider id, status
// moves), or null for a status that moves nothing. Invalid parameters are a 400.
export function smsCallbackPayload(form: Map<string, string>): InboundPayload | null {
  const sid = form.get('MessageSid') ?? form.get('SmsSid');
  if (!sid || !/^[A-Za-z0-9]{2,64}$/.test(sid)) throw invalid('MessageSid is required: the provider message sid');
  const status = form.get('MessageStatus') ?? form.get('SmsStatus');
  if (status !== undefined && status !== 'received' && status !== 'receiving') {
    if (!(status in STATUS)) throw invalid(`MessageStatus ${status.slice(0, 40)} is not a message status`);
    const to = STATUS[status];
    if (to === null) return null;
    const code = form.get('ErrorCode');
    if (code !== undefined && !/^\d{1,10}$/.test(code)) throw invalid('ErrorCode must be a number');
    return { type: 'status', id: sid, status: to, error: to === 'failed' ? `${status}${code ? ` (ErrorCode ${code})` : ''}` : null };
  }
  const from = form.get('From');
  if (!from || !E164.test(from)) throw invalid('From is required: the sender number in E.164 form');
  const body = form.get('Body') ?? '';
  if (body.length > SMS_MAX_CHARS * 4) throw invalid(`Body must be at most ${SMS_MAX_CHARS * 4} characters`);
  const count = Number(form.get('NumMedia') ?? '0');
  if (!Number.isInteger(count) || count < 0 || count > 10) throw invalid('NumMedia must be a number from 0 to 10');
  const media = Array.from({ length: count }, (_v, i) => ({ url: form.get(`MediaUrl${i}`) ?? '', kind: mediaKind(form.get(`MediaContentType${i}`)) }));
  return { type: 'message', id: sid, from, name: null, text: body, media, reply_to: null, timestamp: null };
}

const mediaKind = (type: string | undefined) => (type?.startsWith('image/') ? 'image' : type?.startsWith('video/') ? 'video' : 'document');

// Keywords carriers and the provider treat as opting out of (or back into) a sender's messages.
export const OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'STOP ALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE'];
export const OPT_IN_KEYWORDS = ['START', 'YES', 'UNSTOP'];
