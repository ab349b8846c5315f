// SQL of the worker's Messenger and Instagram batches: the statements of one event, made to work on many.

// The customers already known on their channel, probed by the primary key one id at a time (as
// INBOUND_SEEN_BATCH, so the plan does not depend on the table's statistics).
export const CHANNEL_CONTACTS_BATCH = `
  SELECT cc.channel_account_id, cc.external_user_id, cc.contact_id FROM unnest($1::uuid[], $2::text[]) AS k(channel_account_id, external_user_id)
  CROSS JOIN LATERAL (
    SELECT channel_account_id, external_user_id, contact_id FROM channel_contacts
    WHERE organization_id = app_org_id() AND channel_account_id = k.channel_account_id AND external_user_id = k.external_user_id) cc`;

// INSERT_INBOUND_MESSAGES with a direction, status and origin per row (echoes are OUTBOUND, SENT and
// the agent's), a microsecond apart in the order given. A Meta id stored meanwhile by another worker gives no row.
export const INSERT_SOCIAL_MESSAGES = `
  INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, external_id, metadata,
                        created_at, updated_at, origin)
  SELECT app_org_id(), k.conversation_id, k.contact_id, k.channel_account_id, k.direction, k.status, k.content, k.media, k.external_id, k.metadata,
         now() + (k.n - 1) * interval '1 microsecond', now(), k.origin
  FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::text[], $7::jsonb[], $8::text[], $9::text[], $10::text[])
       WITH ORDINALITY AS k(conversation_id, contact_id, channel_account_id, content, media, external_id, metadata, direction, status, origin, n)
  ORDER BY k.n
  ON CONFLICT (organization_id, channel_account_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
  RETURNING *`;

// MARK_INBOUND_RETRY for many events ($2: each one's reason).
export const MARK_INBOUND_BATCH_RETRY = `
  UPDATE inbound_events e SET attempts = e.attempts + 1, last_error = k.reason,
         next_attempt_at = now() + make_interval(secs => least(300, power(2, e.attempts))),
         processed_at = CASE WHEN e.attempts + 1 >= $3 THEN now() END
  FROM unnest($1::bigint[], $2::text[]) AS k(id, reason) WHERE e.id = k.id AND e.processed_at IS NULL`;

// OUTBOUND_BY_EXTERNAL_IDS for the receipts of a batch: each named outbound message, locked.
export const OUTBOUND_BY_EXTERNAL_IDS_BATCH = `
  SELECT m.* FROM unnest($1::uuid[], $2::text[]) AS k(channel_account_id, external_id)
  CROSS JOIN LATERAL (
    SELECT * FROM messages
    WHERE organization_id = app_org_id() AND channel_account_id = k.channel_account_id AND external_id = k.external_id AND direction = 'OUTBOUND'
    LIMIT 1 FOR UPDATE) m`;

// OUTBOUND_BEFORE_WATERMARK for each watermark receipt of a batch ($4: its position), locked.
export const OUTBOUND_BEFORE_WATERMARKS = `
  SELECT k.n, m.* FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[]) AS k(channel_account_id, contact_id, watermark, n)
  CROSS JOIN LATERAL (
    SELECT * FROM messages
    WHERE organization_id = app_org_id() AND channel_account_id = k.channel_account_id AND contact_id = k.contact_id AND direction = 'OUTBOUND'
      AND status IN ('SENT', 'DELIVERED') AND created_at <= k.watermark
    ORDER BY created_at, id LIMIT 500 FOR UPDATE) m`;

// The batch's receipts' outcome: each moved message's last status.
export const SET_MESSAGE_STATUSES = `
  UPDATE messages m SET status = k.status, updated_at = now()
  FROM unnest($1::uuid[], $2::text[]) AS k(id, status) WHERE m.organization_id = app_org_id() AND m.id = k.id RETURNING m.*`;
