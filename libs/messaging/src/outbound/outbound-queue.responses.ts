import { json } from '@engage/platform';
import { CHANNEL_ACCOUNT } from '../conversations/messaging.responses';
import { MESSAGE_ORIGINS } from '../domain/message-origin';
import { QUEUE_ITEM_STATUSES } from './outbound-queue';

const { uuid, text, at, integer, number, boolean, nullable, arrayOf, object, extend, oneOfValues } = json;

const range = { ...arrayOf(number), minItems: 2, maxItems: 2 };

// The policy in force (domain/pacing-policy.ts, PacingPolicy).
export const PACING_POLICY = object({
  gap_seconds: range,
  cold_gap_seconds: range,
  per_hour: nullable(integer),
  per_day: nullable(integer),
  warmup: boolean,
  per_recipient_min_gap_seconds: number,
  per_recipient_per_hour: integer,
  quiet_hours: nullable(object({ start: text, end: text })),
  auto_pause_after_failures: integer,
  receivers_per_call: integer,
  per_second: nullable(integer),
});

// GET/PATCH .../channel-accounts/<id>, .../pause, .../resume.
export const CHANNEL_QUEUE_ACCOUNT = extend(CHANNEL_ACCOUNT, { pacing: PACING_POLICY, pacing_overrides: { type: 'object' }, paused: boolean });

const counts = { type: 'object', additionalProperties: integer };

export const OUTBOUND_QUEUE = object({
  accounts: arrayOf(
    object({
      channel_account_id: uuid,
      kind: text,
      name: text,
      paused: boolean,
      paused_reason: nullable(text),
      depth: object({ total: integer, by_origin: counts }),
      next_send_at: nullable(at),
      eta_last: nullable(at),
      sent_last_hour: integer,
      sent_today: integer,
      caps: object({ per_hour: nullable(integer), per_day: nullable(integer) }),
    }),
  ),
});

export const OUTBOUND_QUEUE_ITEMS = object({
  items: arrayOf(
    object({
      id: uuid,
      channel_account_id: uuid,
      conversation_id: uuid,
      contact_id: uuid,
      status: oneOfValues(QUEUE_ITEM_STATUSES),
      origin: oneOfValues(MESSAGE_ORIGINS),
      origin_id: nullable(uuid),
      content: text,
      media: arrayOf({ type: 'object' }),
      scheduled_for: nullable(at),
      created_at: at,
      position: integer,
      expected_at: nullable(at),
    }),
  ),
  total: integer,
  limit: integer,
  offset: integer,
});

export const QUEUED_SEND = object({ message_id: uuid, message_ids: arrayOf(uuid), conversation_id: uuid, status: oneOfValues(['QUEUED']), scheduled_for: at });
