// Campaigns' statements. Contacts are read through the CRM's published view crm_campaign_contacts
// (the reader's row-level security applies); messages only through messaging's events.

export const INSERT_SEGMENT = `
  INSERT INTO segments (organization_id, name, filter, created_by) VALUES (app_org_id(), $1, $2, $3) RETURNING *`;
export const SEGMENT_BY_ID = `SELECT * FROM segments WHERE id = $1`;
export const SEGMENT_FOR_UPDATE = `SELECT * FROM segments WHERE id = $1 FOR UPDATE`;
export const UPDATE_SEGMENT = `UPDATE segments SET name = $2, filter = $3, updated_at = now() WHERE id = $1 RETURNING *`;
export const DELETE_SEGMENT = `DELETE FROM segments WHERE id = $1`;

// An audience's contacts, each with the status a broadcast would give them: no opt-in, no phone,
// a phone an earlier contact of the audience already has (the first by creation keeps it), or
// queued. :where is the data API's SQL for the audience's filter over alias t.
export const classifiedAudience = (where: string) => `
  WITH matched AS (
    SELECT t.id, t.first_name, t.last_name, nullif(t.phones[1], '') AS phone, t.opt_in_status, t.created_at
    FROM crm_campaign_contacts t WHERE ${where}
  ), ranked AS (
    SELECT m.*, row_number() OVER (PARTITION BY m.opt_in_status IS TRUE AND m.phone IS NOT NULL, m.phone ORDER BY m.created_at, m.id) AS nth
    FROM matched m
  )
  SELECT r.*, CASE WHEN r.opt_in_status IS NOT TRUE THEN 'skipped_no_opt_in'
                   WHEN r.phone IS NULL THEN 'skipped_invalid'
                   WHEN r.nth > 1 THEN 'skipped_duplicate'
                   ELSE 'queued' END AS status
  FROM ranked r`;

export const previewOf = (where: string) => `
  WITH audience AS (${classifiedAudience(where)})
  SELECT (SELECT coalesce(json_object_agg(status, n), '{}') FROM (SELECT status, count(*)::int AS n FROM audience GROUP BY status) s) AS counts,
         (SELECT coalesce(json_agg(x ORDER BY x.created_at, x.id), '[]') FROM (
            SELECT id, first_name, last_name, phone, created_at FROM audience WHERE status = 'queued' ORDER BY created_at, id LIMIT 10) x) AS sample`;

// The named contacts the reader sees (the others are a 404).
export const VISIBLE_CONTACTS = `SELECT id FROM crm_campaign_contacts WHERE id = ANY ($1::uuid[])`;
export const CONTACT_BY_ID = `SELECT * FROM crm_campaign_contacts WHERE id = $1`;

export const INSERT_BROADCAST = `
  INSERT INTO broadcasts (organization_id, name, channel_account_id, channel_kind, audience, content, personalised, created_by,
    reply_window_hours, auto_pause_after_failures)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`;
export const BROADCAST_BY_ID = `SELECT * FROM broadcasts WHERE id = $1`;
export const BROADCAST_FOR_UPDATE = `SELECT * FROM broadcasts WHERE id = $1 FOR UPDATE`;
export const LIST_BROADCASTS = `
  SELECT * FROM broadcasts WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`;
export const COUNT_BROADCASTS = `SELECT count(*)::int AS n FROM broadcasts WHERE ($1::text IS NULL OR status = $1)`;
export const RECIPIENT_COUNTS = `
  SELECT broadcast_id, status, count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = ANY ($1::uuid[]) GROUP BY broadcast_id, status`;

export const SET_STATUS = `
  UPDATE broadcasts SET status = $2, scheduled_at = CASE WHEN $2 = 'scheduled' THEN $3 ELSE scheduled_at END,
    started_at = CASE WHEN $2 = 'sending' THEN coalesce(started_at, $4) ELSE started_at END,
    paused_at = CASE WHEN $2 = 'paused' THEN $4 WHEN $2 = 'sending' THEN NULL ELSE paused_at END,
    cancelled_at = CASE WHEN $2 = 'cancelled' THEN $4 ELSE cancelled_at END,
    pause_reason = CASE WHEN $2 IN ('paused', 'sending') THEN NULL ELSE pause_reason END,
    failures_in_a_row = CASE WHEN $2 = 'sending' THEN 0 ELSE failures_in_a_row END,
    updated_at = $4
  WHERE id = $1 RETURNING *`;

// Every contact of the audience, once, with its status (the statement holds the rule of one phone
// per broadcast). $1 is the broadcast; the audience's filter parameters follow.
export const writeRecipients = (where: string) => `
  INSERT INTO broadcast_recipients (organization_id, broadcast_id, contact_id, phone, status, error, created_at, updated_at)
  SELECT app_org_id(), $1, a.id, a.phone, a.status,
         CASE a.status WHEN 'skipped_no_opt_in' THEN 'the contact has not opted in (opt_in_status is not true)'
                       WHEN 'skipped_invalid' THEN 'the contact has no phone number'
                       WHEN 'skipped_duplicate' THEN 'another recipient of this broadcast has this phone number' END,
         $2, $2
  FROM (${classifiedAudience(where)}) a
  ON CONFLICT DO NOTHING`;

// Recipients not handed to the queue yet when their broadcast is cancelled: they get nothing.
export const CANCEL_WAITING = `
  UPDATE broadcast_recipients SET status = 'failed', error = 'not sent: the broadcast was cancelled', failed_at = $2, updated_at = $2
  WHERE broadcast_id = $1 AND status = 'queued' AND queued_at IS NULL`;

// System: scheduled broadcasts whose time has come (every organization).
export const SYSTEM_DUE_SCHEDULED = `
  SELECT id, organization_id FROM broadcasts WHERE status = 'scheduled' AND scheduled_at <= $1 ORDER BY scheduled_at LIMIT $2`;

// System: sending broadcasts no worker holds, taken for a while (the one that waited longest first).
export const SYSTEM_LEASE_SENDING = `
  UPDATE broadcasts SET lease_until = $1::timestamptz + make_interval(secs => $2) WHERE id IN (
    SELECT id FROM broadcasts WHERE status = 'sending' AND (lease_until IS NULL OR lease_until <= $1)
    ORDER BY last_handed_at NULLS FIRST LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING *`;
export const SYSTEM_RELEASE = `UPDATE broadcasts SET lease_until = NULL, last_handed_at = $2 WHERE id = $1`;

// System: sending broadcasts every recipient of which has an outcome.
export const SYSTEM_COMPLETE = `
  UPDATE broadcasts b SET status = 'completed', completed_at = $1, updated_at = $1
  WHERE b.status = 'sending' AND NOT EXISTS (SELECT 1 FROM broadcast_recipients r WHERE r.broadcast_id = b.id AND r.status = 'queued')
  RETURNING id`;

// Messages of the broadcast in the queue without an outcome yet.
export const WAITING_IN_QUEUE = `
  SELECT count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = $1 AND status = 'queued' AND queued_at IS NOT NULL`;

// The next recipients to hand over, with their contact as the text's fields read it.
export const NEXT_RECIPIENTS = `
  SELECT r.id, r.contact_id, r.phone, to_jsonb(c) AS contact FROM broadcast_recipients r
  LEFT JOIN crm_campaign_contacts c ON c.id = r.contact_id
  WHERE r.broadcast_id = $1 AND r.status = 'queued' AND r.queued_at IS NULL
  ORDER BY r.created_at, r.id LIMIT $2`;

// The hand-over checkpoint, in the transaction that stores the message: only a recipient not
// handed over yet, of a broadcast ($3) still sending. The broadcast's row is share-locked until the
// message is stored, so a pause or cancel (which locks it for update) waits for the message and
// then withdraws it, or comes first and this claims nothing.
export const CLAIM_RECIPIENT = `
  WITH sending AS (SELECT id FROM broadcasts WHERE id = $3 AND status = 'sending' FOR SHARE)
  UPDATE broadcast_recipients r SET queued_at = $2, updated_at = $2
  WHERE r.id = $1 AND r.status = 'queued' AND r.queued_at IS NULL AND r.broadcast_id IN (SELECT id FROM sending)
  RETURNING r.id`;
// The stored message's id, on the recipient as claimed at $3 (not if its message was withdrawn and
// the recipient put back meanwhile).
export const SET_MESSAGE = `UPDATE broadcast_recipients SET message_id = $2 WHERE id = $1 AND queued_at = $3 AND message_id IS NULL`;
// Recipients whose messages were withdrawn from the queue (a pause or cancel): back to waiting, to
// be handed out again on resume.
export const PUT_BACK = `
  UPDATE broadcast_recipients SET queued_at = NULL, message_id = NULL, updated_at = $3
  WHERE broadcast_id = $1 AND id = ANY ($2::uuid[]) AND status = 'queued'`;
// The queue refused the recipient's message (an opted-out SMS number, a plan's limit...).
export const REFUSED = `
  UPDATE broadcast_recipients SET status = 'failed', error = $2, queued_at = $3, failed_at = $3, updated_at = $3
  WHERE id = $1 AND status = 'queued' AND queued_at IS NULL`;

// A message's outcome on its recipient, never backwards: sent < delivered < read < replied;
// failed only before anything later than sent; nothing changes a failed or skipped recipient.
// Answers the recipient when it moved.
export const APPLY_OUTCOME = `
  UPDATE broadcast_recipients SET status = $3, message_id = coalesce(message_id, $4),
    error = CASE WHEN $3 = 'failed' THEN $5 ELSE error END,
    sent_at = CASE WHEN $3 IN ('sent', 'delivered', 'read') THEN coalesce(sent_at, $6) ELSE sent_at END,
    delivered_at = CASE WHEN $3 IN ('delivered', 'read') THEN coalesce(delivered_at, $6) ELSE delivered_at END,
    read_at = CASE WHEN $3 = 'read' THEN coalesce(read_at, $6) ELSE read_at END,
    failed_at = CASE WHEN $3 = 'failed' THEN $6 ELSE failed_at END,
    updated_at = $6
  WHERE broadcast_id = $1 AND contact_id = $2 AND queued_at IS NOT NULL
    AND CASE WHEN $3 = 'failed' THEN status IN ('queued', 'sent')
             ELSE array_position(ARRAY['queued', 'sent', 'delivered', 'read', 'replied'], status)
                  < array_position(ARRAY['queued', 'sent', 'delivered', 'read', 'replied'], $3::text) END
  RETURNING id`;

export const FAILURES_BY_REASON = `
  SELECT coalesce(error, 'unknown') AS reason, count(*)::int AS n FROM broadcast_recipients
  WHERE broadcast_id = $1 AND status = 'failed' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 50`;
export const RECIPIENTS_CSV = `
  SELECT contact_id, phone, status, error, message_id, queued_at, sent_at, delivered_at, read_at, replied_at, failed_at FROM broadcast_recipients
  WHERE broadcast_id = $1 ORDER BY created_at, id`;

// A reply (at $3) of the recipient of broadcast $1 that is contact $2: replied when its message
// left (sent, delivered or read) and the reply came within the broadcast's window of the send.
// Replied is the end state: a second reply, or one outside the window, changes nothing.
export const MARK_REPLIED = `
  UPDATE broadcast_recipients r SET status = 'replied', replied_at = $3, updated_at = $3
  FROM broadcasts b
  WHERE r.broadcast_id = $1 AND r.contact_id = $2 AND b.id = r.broadcast_id
    AND r.status IN ('sent', 'delivered', 'read') AND r.sent_at IS NOT NULL
    AND $3::timestamptz >= r.sent_at AND $3::timestamptz <= r.sent_at + make_interval(hours => b.reply_window_hours)
  RETURNING r.id`;

// Provider failures in a row of a broadcast: one more, or none after a message that left.
export const COUNT_FAILURE = `
  UPDATE broadcasts SET failures_in_a_row = failures_in_a_row + 1 WHERE id = $1
  RETURNING id, status, failures_in_a_row, auto_pause_after_failures, channel_account_id`;
export const RESET_FAILURES = `UPDATE broadcasts SET failures_in_a_row = 0 WHERE id = $1 AND failures_in_a_row <> 0`;
// The broadcast pauses itself, saying why (only while sending).
export const AUTO_PAUSE = `
  UPDATE broadcasts SET status = 'paused', paused_at = $2, pause_reason = $3, updated_at = $2
  WHERE id = $1 AND status = 'sending' RETURNING *`;
