// SQL of the inbound worker's batches: the statements of one event, each made to work on many.

// The batch's events still waiting; a row another worker holds is skipped.
export const CLAIM_INBOUND_BATCH = `
  SELECT id, organization_id, channel_account_id, payload, attempts FROM inbound_events
  WHERE id = ANY($1::bigint[]) AND processed_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED`;

// $2: why the event ended without a message (a duplicate), null for a stored one.
export const MARK_INBOUND_BATCH_DONE = `
  UPDATE inbound_events e SET processed_at = now(), attempts = e.attempts + 1, last_error = k.error
  FROM unnest($1::bigint[], $2::text[]) AS k(id, error) WHERE e.id = k.id`;

// Provider ids already stored on their channel. One probe of the unique provider-id index per id
// (LATERAL ... LIMIT 1): as a plain join the planner, with statistics from when the organization had
// few messages, hashed the ids against a scan of all the organization's messages.
export const INBOUND_SEEN_BATCH = `
  SELECT m.channel_account_id, m.external_id FROM unnest($1::uuid[], $2::text[]) AS k(channel_account_id, external_id)
  CROSS JOIN LATERAL (
    SELECT channel_account_id, external_id FROM messages
    WHERE organization_id = app_org_id() AND channel_account_id = k.channel_account_id AND external_id = k.external_id LIMIT 1) m`;

// UPSERT_CONVERSATION for distinct (contact, channel) pairs, given in a fixed order so two batches
// lock shared conversations in the same order. The customer's latest message moves the
// conversation in the same statement: $4 stamps last_customer_message_at with the transaction's
// time (channels without a provider window); otherwise $5 is each pair's latest customer message
// (the provider's own timestamp, or null), which also opens the window of the channel's kind
// ($6 kinds, $7 their free-form hours), never moving either back.
export const UPSERT_CONVERSATIONS = `
  INSERT INTO conversations (organization_id, contact_id, channel_account_id, last_message_at, unread_count, last_customer_message_at, window_closes_at)
  SELECT app_org_id(), k.contact_id, k.channel_account_id, now(), k.unread,
         CASE WHEN $4::boolean AND k.unread > 0 THEN now() ELSE k.wrote END, k.wrote + w.hours * interval '1 hour'
  FROM unnest($1::uuid[], $2::uuid[], $3::int[], $5::timestamptz[]) WITH ORDINALITY AS k(contact_id, channel_account_id, unread, wrote, n)
  LEFT JOIN channel_accounts a ON a.organization_id = app_org_id() AND a.id = k.channel_account_id
  LEFT JOIN unnest($6::text[], $7::float8[]) AS w(kind, hours) ON w.kind = a.kind
  ORDER BY k.n
  ON CONFLICT (organization_id, contact_id, channel_account_id) WHERE status <> 'RESOLVED'
  DO UPDATE SET last_message_at = now(), unread_count = conversations.unread_count + EXCLUDED.unread_count, updated_at = now(),
    last_customer_message_at = CASE WHEN $4::boolean AND EXCLUDED.unread_count > 0 THEN now()
      WHEN EXCLUDED.last_customer_message_at > coalesce(conversations.last_customer_message_at, '-infinity') THEN EXCLUDED.last_customer_message_at
      ELSE conversations.last_customer_message_at END,
    window_closes_at = CASE WHEN NOT $4::boolean AND EXCLUDED.last_customer_message_at > coalesce(conversations.last_customer_message_at, '-infinity')
      THEN EXCLUDED.window_closes_at ELSE conversations.window_closes_at END
  RETURNING *, (xmax = 0) AS created`;

// INSERT_INBOUND_MESSAGE for many; a microsecond apart in the order given, so a conversation's
// messages keep their order although they share one transaction. A provider id stored meanwhile
// by another worker gives no row (the caller then falls back to one event at a time).
export const INSERT_INBOUND_MESSAGES = `
  INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, external_id, metadata, created_at, updated_at,
                        origin)
  SELECT app_org_id(), k.conversation_id, k.contact_id, k.channel_account_id, 'INBOUND', 'DELIVERED', k.content, k.media, k.external_id, k.metadata,
         now() + (k.n - 1) * interval '1 microsecond', now(), 'customer'
  FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::text[], $7::jsonb[])
       WITH ORDINALITY AS k(conversation_id, contact_id, channel_account_id, content, media, external_id, metadata, n)
  ORDER BY k.n
  ON CONFLICT (organization_id, channel_account_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
  RETURNING *`;

// MESSAGE_BY_EXTERNAL_ID for the messages replied to (no lock: they are only read), probed as above.
export const MESSAGES_BY_EXTERNAL_IDS = `
  SELECT m.* FROM unnest($1::uuid[], $2::text[]) AS k(channel_account_id, external_id)
  CROSS JOIN LATERAL (
    SELECT * FROM messages
    WHERE organization_id = app_org_id() AND channel_account_id = k.channel_account_id AND external_id = k.external_id LIMIT 1) m`;

// LAST_OUTBOUND for each conversation, in the order of messages_conversation_idx (created_at DESC, id):
// an order no index gives (id DESC) let a plan scan the organization's messages by time instead.
export const LAST_OUTBOUND_BATCH = `
  SELECT m.* FROM unnest($1::uuid[]) AS k(conversation_id)
  CROSS JOIN LATERAL (
    SELECT * FROM messages WHERE organization_id = app_org_id() AND conversation_id = k.conversation_id AND direction = 'OUTBOUND'
    ORDER BY created_at DESC, id LIMIT 1) m`;
