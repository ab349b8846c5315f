import { json, viewSchema } from '@engage/platform';
import { REENGAGEMENT_NUDGES } from '../domain/nudge';

const { text, boolean, integer, at, uuid, arrayOf, object, nullable, oneOfValues, extend } = json;

// An organization's settings: the key never, only whether one is set and its last four characters.
export const SETTINGS = object({
  enabled: boolean,
  provider: oneOfValues(['default', 'custom']),
  has_custom_key: boolean,
  custom_key_last4: nullable(text),
  custom_base_url: nullable(text),
  key_scope: oneOfValues(['all', 'reengagement']),
  fallback_to_default: boolean,
  approval_mode: boolean,
  trigger_hours: integer,
  channels: arrayOf(text),
  guidelines: text,
  default_ai_configured: boolean,
  updated_at: nullable(at),
});

// After a PUT that set a key: whether the one cheap call with it worked.
export const SETTINGS_SAVED = extend(SETTINGS, { custom_key_check: object({ ok: boolean, error: text }, ['error']) });
export const SETTINGS_SAVED_ANSWER = { oneOf: [SETTINGS, SETTINGS_SAVED] };

const NUDGE = viewSchema(REENGAGEMENT_NUDGES);
export const NUDGE_ANSWER = object({ nudge: NUDGE });
export const DRAFT_PAGE = object({ drafts: arrayOf(NUDGE), page: integer, limit: integer });
export const CONVERSATION_STATE = object({
  conversation_id: uuid,
  unanswered_count: integer,
  disabled: boolean,
  disabled_at: nullable(at),
  disabled_reason: nullable(text),
});
