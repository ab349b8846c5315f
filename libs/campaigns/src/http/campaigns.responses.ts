import { json } from '@engage/platform';
import { BROADCAST_STATUSES, RECIPIENT_STATUSES } from '../domain/broadcast';

const { text, uuid, at, integer, boolean, arrayOf, object, oneOfValues, nullable } = json;
const nullableText = nullable(text);
const nullableAt = nullable(at);
const rate = nullable(json.number);
const anyObject = { type: 'object', additionalProperties: true };

export const AUDIENCE_PREVIEW = object({
  count: integer,
  reachable: integer,
  skipped: object({ no_opt_in: integer, no_phone: integer, duplicate_phone: integer }),
  sample: arrayOf(object({ id: uuid, first_name: text, last_name: nullableText, phone: text })),
});

// encoding and segments for SMS accounts only.
export const CONTENT_PREVIEW = object({ text, encoding: oneOfValues(['GSM-7', 'UCS-2']), segments: integer }, ['encoding', 'segments']);

const COUNTS = object({ ...Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, integer])), total: integer });

export const BROADCAST = object({
  id: uuid,
  organization_id: uuid,
  name: text,
  channel_account_id: uuid,
  channel_kind: oneOfValues(['chat_app', 'sms']),
  audience: anyObject,
  content: anyObject,
  personalised: boolean,
  reply_window_hours: integer,
  auto_pause_after_failures: integer,
  pause_reason: nullableText,
  status: oneOfValues(BROADCAST_STATUSES),
  scheduled_at: nullableAt,
  started_at: nullableAt,
  paused_at: nullableAt,
  completed_at: nullableAt,
  cancelled_at: nullableAt,
  created_by: nullable(uuid),
  created_at: at,
  updated_at: at,
  counts: COUNTS,
});

export const BROADCAST_PAGE = object({ broadcasts: arrayOf(BROADCAST), total: integer, limit: integer, offset: integer });

export const BROADCAST_REPORT = object({
  broadcast_id: uuid,
  status: oneOfValues(BROADCAST_STATUSES),
  pause_reason: nullableText,
  counts: COUNTS,
  delivery_rate: rate,
  read_rate: rate,
  reply_rate: rate,
  failures_by_reason: arrayOf(object({ reason: text, count: integer })),
});
