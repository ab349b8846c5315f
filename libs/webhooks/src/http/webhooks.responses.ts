import { json } from '@engage/platform';

const { uuid, text, at, integer, boolean, object, nullable, oneOfValues } = json;

// The outcome of one attempt made now (test or manual retry).
export const ATTEMPT_OUTCOME = object({
  delivery_id: uuid,
  // A UUID; empty when the configuration was deleted while the attempt ran (nothing was logged).
  log_id: { type: 'string', pattern: '^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?$' },
  success: boolean,
  status: oneOfValues(['success', 'failed', 'retrying']),
  status_code: nullable(integer),
  duration_ms: integer,
  error: nullable(text),
  attempt: integer,
  next_attempt_at: nullable(at),
});
