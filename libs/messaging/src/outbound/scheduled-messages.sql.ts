import { rowList } from '@engage/platform';
import { SCHEDULED_MESSAGES } from './scheduled-messages';

// The SQL of scheduled sends. Tenant statements run under row-level security; the pass's claim and
// its look for stale sends run as the system, across organizations (as the pending-send sweeper).
const COLUMNS = rowList(SCHEDULED_MESSAGES);

export const INSERT_SCHEDULED_MESSAGE = `
  INSERT INTO scheduled_messages (organization_id, conversation_id, send_at, text, media_urls, cancel_on_reply, created_by)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6)
  RETURNING ${COLUMNS}`;

export const SCHEDULED_MESSAGE_BY_ID = `SELECT ${COLUMNS} FROM scheduled_messages WHERE id = $1`;

export const LIST_SCHEDULED_MESSAGES = `
  SELECT (SELECT count(*) FROM scheduled_messages s WHERE ($1::text IS NULL OR s.status = $1) AND ($2::uuid IS NULL OR s.conversation_id = $2))::int AS total,
         coalesce((SELECT json_agg(page ORDER BY page.send_at, page.id)
                   FROM (SELECT ${COLUMNS} FROM scheduled_messages s
                         WHERE ($1::text IS NULL OR s.status = $1) AND ($2::uuid IS NULL OR s.conversation_id = $2)
                         ORDER BY s.send_at, s.id LIMIT $3 OFFSET $4) page), '[]'::json) AS scheduled_messages`;

// Edits and cancels apply only while it is scheduled: a claimed one is left alone (the caller reads why).
export const CHANGE_SCHEDULED_MESSAGE = `
  UPDATE scheduled_messages SET text = coalesce($2, text), send_at = coalesce($3, send_at), updated_at = now()
  WHERE id = $1 AND status = 'scheduled'
  RETURNING ${COLUMNS}`;

export const CANCEL_SCHEDULED_MESSAGE = `
  UPDATE scheduled_messages SET status = 'cancelled', updated_at = now()
  WHERE id = $1 AND status = 'scheduled'
  RETURNING ${COLUMNS}`;

// The claim: one due message moves to `sending` in one statement. SKIP LOCKED passes over a row
// another claim, an edit, a cancel or a customer's reply holds; the outer condition makes a row that
// changed meanwhile match nothing. Due by the database's clock, never before send_at.
export const CLAIM_DUE_SCHEDULED_MESSAGE = `
  UPDATE scheduled_messages SET status = 'sending', claimed_at = now(), updated_at = now()
  WHERE id = (SELECT id FROM scheduled_messages WHERE status = 'scheduled' AND send_at <= now()
              ORDER BY send_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
    AND status = 'scheduled'
  RETURNING ${COLUMNS}`;

// The outcome of a claimed send, recorded once (a settled one is left as it is).
export const RECORD_SCHEDULED_OUTCOME = `
  UPDATE scheduled_messages SET status = $2, sent_message_ids = $3, error = $4, sent_at = CASE WHEN $2 = 'sent' THEN now() END, updated_at = now()
  WHERE id = $1 AND status = 'sending'
  RETURNING ${COLUMNS}`;

// Claimed sends older than the cutoff: their process stopped before recording the outcome.
export const STALE_SCHEDULED_SENDS = `
  SELECT id, organization_id, conversation_id FROM scheduled_messages WHERE status = 'sending' AND claimed_at < $1 ORDER BY claimed_at LIMIT $2`;

// A stale send's outcome from the messages it wrote: sent when one of them went out, else
// outcome_unknown (none was stored, or none is known to have reached the provider).
export const SETTLE_STALE_SCHEDULED_SEND = `
  WITH written AS (
    SELECT coalesce(array_agg(m.id::text ORDER BY m.created_at, m.id), '{}') AS ids,
           coalesce(bool_or(m.status IN ('SENT', 'DELIVERED', 'READ')), false) AS went_out
    FROM messages m WHERE m.conversation_id = $4 AND m.direction = 'OUTBOUND' AND m.origin = 'scheduled' AND m.origin_id = $1
  )
  UPDATE scheduled_messages s SET status = CASE WHEN w.went_out THEN 'sent' ELSE 'failed' END,
         sent_message_ids = w.ids, error = CASE WHEN w.went_out THEN NULL ELSE $3 END,
         sent_at = CASE WHEN w.went_out THEN now() END, updated_at = now()
  FROM written w
  WHERE s.id = $1 AND s.status = 'sending' AND s.claimed_at < $2
  RETURNING ${rowList(SCHEDULED_MESSAGES, 's')}`;

// The messages a scheduled message's send wrote, in order.
export const MESSAGES_OF_SCHEDULED = `
  SELECT id FROM messages WHERE conversation_id = $1 AND direction = 'OUTBOUND' AND origin = 'scheduled' AND origin_id = $2 ORDER BY created_at, id`;

// The author's membership now (identity's published profiles view): the send goes out with this role.
export const AUTHOR_ROLE = `SELECT role FROM profiles WHERE id = $1`;
