import { rowList } from '@engage/platform';
import { MESSAGES } from '../infrastructure/exposed-tables';

// SQL of the dispatcher. Every statement runs inside Database.inTenant (row-level security applies).

// One part of a send: $4 its status (PENDING, handed to the provider now, or QUEUED when it waits
// until $12), $9 its index (parts keep their order by created_at), $10, $11 who wrote it.
export const INSERT_OUTBOUND = `
  INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, metadata, email_message_id,
                        created_at, origin, origin_id, scheduled_for, dispatched_at)
  VALUES (app_org_id(), $1, $2, $3, 'OUTBOUND', $4, $5, $6, $7, $8, now() + make_interval(secs => $9 * 0.000001), $10, $11, $12,
          CASE WHEN $4 = 'PENDING' THEN now() END)
  RETURNING ${rowList(MESSAGES)}`;

// A result an adapter adds after the send (email: where its copy went) kept on the message.
export const ADD_METADATA = `UPDATE messages SET metadata = metadata || $2::jsonb WHERE id = $1`;

// An origin's messages still waiting in the account's queue, withdrawn ($4 the reason); the queue's
// partial index on QUEUED messages finds them.
export const WITHDRAW_QUEUED = `
  UPDATE messages SET status = 'FAILED', error = $4, metadata = metadata || '{"withdrawn": true}'::jsonb, scheduled_for = NULL, updated_at = now()
  WHERE channel_account_id = $1 AND status = 'QUEUED' AND origin = $2 AND origin_id = $3
  RETURNING ${rowList(MESSAGES)}`;
