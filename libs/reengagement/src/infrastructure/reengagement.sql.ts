// Re-engagement's statements. Messaging is read only through its published view
// conversation_reply_windows (docs/reengagement.md); tenant statements run under row-level security.

export const SETTINGS_OF = `SELECT * FROM reengagement_settings WHERE organization_id = app_org_id()`;

export const UPSERT_SETTINGS = `
  INSERT INTO reengagement_settings (organization_id, enabled, provider, custom_key_sealed, custom_key_last4, custom_base_url, key_scope,
                                     fallback_to_default, approval_mode, trigger_hours, channels, guidelines, updated_at)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now())
  ON CONFLICT (organization_id) DO UPDATE SET enabled = $1, provider = $2, custom_key_sealed = $3, custom_key_last4 = $4, custom_base_url = $5,
    key_scope = $6, fallback_to_default = $7, approval_mode = $8, trigger_hours = $9, channels = $10, guidelines = $11, updated_at = now()
  RETURNING *`;

// Nudges being written or waiting for approval whose window closed: nothing may be sent any more
// (system, every organization).
export const EXPIRE_CLOSED = `
  UPDATE reengagement_nudges SET status = 'expired', failure_reason = 'the 24-hour window closed before it was sent', updated_at = $1
  WHERE status IN ('drafting', 'draft') AND window_closes_at <= $1`;

// Conversations whose third consecutive nudge went unanswered (its window is over): disabled.
export const DISABLE_UNANSWERED = `
  UPDATE reengagement_conversations rc SET disabled_at = $1, disabled_reason = 'unanswered_nudges', updated_at = $1
  WHERE rc.unanswered_count >= $2 AND rc.disabled_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM reengagement_nudges n WHERE n.organization_id = rc.organization_id AND n.conversation_id = rc.conversation_id
                    AND n.status = 'sent' AND n.window_closes_at > $1)`;

// §8's selection, across organizations: the customer's last message between trigger_hours and 24 h
// old (the index range is 12 to 24 h), on a chosen channel, window still open, not answered by the
// business since, no nudge yet for this window, fewer than 3 unanswered and not disabled. OFFSET 0
// keeps the nudge check a probe of its unique index per candidate: as an anti-join the planner
// scanned every nudge once per candidate (384 ms for 1,000 against 1,000, bench/reengagement-pass.mjs).
export const DUE_CONVERSATIONS = `
  SELECT w.organization_id, w.conversation_id, w.contact_id, w.last_customer_message_at, w.window_closes_at
  FROM conversation_reply_windows w
  JOIN reengagement_settings s ON s.organization_id = w.organization_id AND s.enabled
  LEFT JOIN reengagement_conversations rc ON rc.organization_id = w.organization_id AND rc.conversation_id = w.conversation_id
  WHERE w.last_customer_message_at > $1::timestamptz - interval '24 hours'
    AND w.last_customer_message_at <= $1::timestamptz - interval '12 hours'
    AND w.last_customer_message_at <= $1::timestamptz - make_interval(hours => s.trigger_hours)
    AND w.channel_kind = ANY (s.channels)
    AND (w.window_closes_at IS NULL OR w.window_closes_at > $1)
    AND (rc.conversation_id IS NULL OR (rc.disabled_at IS NULL AND rc.unanswered_count < $2))
    AND NOT EXISTS (SELECT 1 FROM reengagement_nudges n WHERE n.organization_id = w.organization_id AND n.conversation_id = w.conversation_id
                    AND n.last_customer_message_at = w.last_customer_message_at OFFSET 0)
    AND NOT w.answered_since_customer
  ORDER BY w.last_customer_message_at
  LIMIT $3`;

// The window's claim (`drafting` while the AI writes): a second process (or pass) inserting for the same window gets no row.
export const CLAIM_WINDOW = `
  INSERT INTO reengagement_nudges (organization_id, conversation_id, contact_id, status, last_customer_message_at, window_closes_at, created_at, updated_at)
  VALUES (app_org_id(), $1, $2, 'drafting', $3, $4, $5, $5)
  ON CONFLICT ON CONSTRAINT reengagement_nudges_one_per_window DO NOTHING
  RETURNING *`;

export const NUDGE_BY_ID = `SELECT * FROM reengagement_nudges WHERE id = $1`;

export const DRAFTED = `
  UPDATE reengagement_nudges SET status = $2, text = $3, provider = $4, fallback_reason = $5, failure_reason = $6, updated_at = now()
  WHERE id = $1 AND status = 'drafting' RETURNING *`;

// The send's claim: only one approve (or the scheduler) moves a nudge on to sent.
// It waits as `queued` until its message leaves (at once when the account's pacing allows).
export const CLAIM_SEND = `
  UPDATE reengagement_nudges SET status = 'queued', text = $2, reviewed_by = $3, updated_at = $4
  WHERE id = $1 AND status = ANY ($5::text[]) AND window_closes_at > $4 RETURNING *`;

// The message was refused or failed: `expired` ($2) when the window had closed, else `failed`.
export const SEND_FAILED = `
  UPDATE reengagement_nudges SET status = $2, failure_reason = $3, sent_at = NULL, updated_at = now() WHERE id = $1 AND status = 'queued' RETURNING *`;

// The message left: sent at $2 (once: whoever saw the outcome first moves it).
export const MARK_SENT = `
  UPDATE reengagement_nudges SET status = 'sent', sent_at = $2, message_id = coalesce(message_id, $3), updated_at = now()
  WHERE id = $1 AND status = 'queued' RETURNING *`;

// Whether the conversation's window has closed (messaging's published view).
export const WINDOW_CLOSED = `
  SELECT coalesce(window_closes_at <= now(), false) AS closed FROM conversation_reply_windows WHERE conversation_id = $1`;

export const SET_MESSAGE = `UPDATE reengagement_nudges SET message_id = $2 WHERE id = $1 RETURNING *`;

export const COUNT_UNANSWERED = `
  INSERT INTO reengagement_conversations (organization_id, conversation_id, unanswered_count, updated_at) VALUES (app_org_id(), $1, 1, now())
  ON CONFLICT (organization_id, conversation_id) DO UPDATE SET unanswered_count = reengagement_conversations.unanswered_count + 1, updated_at = now()`;

export const SKIP = `
  UPDATE reengagement_nudges SET status = 'skipped', reviewed_by = $2, updated_at = now() WHERE id = $1 AND status = 'draft' RETURNING *`;

export const LIST_NUDGES = `
  SELECT * FROM reengagement_nudges WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`;

// Customers' messages of one batch ($1 conversations, $2 times, in the batch's order), in one
// statement: each open nudge of their conversations (still in its window and following an earlier
// customer message) is answered by the first message it qualifies for, as one message at a time
// would, and a conversation where a sent one was answered has its counter back at 0. Locked in id
// order, so concurrent batches cannot deadlock; the lock re-reads a row a concurrent send changed.
export const MARK_REPLIED = `
  WITH reply AS (
    SELECT * FROM unnest($1::uuid[], $2::timestamptz[]) WITH ORDINALITY AS r(conversation_id, at, seq)
  ), open AS (
    SELECT n.id, n.conversation_id, n.status, n.window_closes_at, n.last_customer_message_at FROM reengagement_nudges n
    WHERE n.conversation_id = ANY ($1::uuid[]) AND n.status IN ('drafting', 'draft', 'queued', 'sent')
      AND EXISTS (SELECT 1 FROM reply r WHERE r.conversation_id = n.conversation_id AND n.window_closes_at > r.at AND n.last_customer_message_at < r.at)
    ORDER BY n.id
    FOR UPDATE OF n
  ), answered AS (
    SELECT DISTINCT ON (o.id) o.id, o.conversation_id, o.status, r.at FROM open o
    JOIN reply r ON r.conversation_id = o.conversation_id AND o.window_closes_at > r.at AND o.last_customer_message_at < r.at
    ORDER BY o.id, r.seq
  ), marked AS (
    UPDATE reengagement_nudges n SET status = 'user_replied', replied_at = a.at, updated_at = now() FROM answered a WHERE n.id = a.id
    RETURNING a.conversation_id, a.status
  ), reset AS (
    UPDATE reengagement_conversations SET unanswered_count = 0, updated_at = now()
    WHERE conversation_id IN (SELECT conversation_id FROM marked WHERE status = 'sent') RETURNING 1
  )
  SELECT (SELECT count(*) FROM marked)::int AS replied, (SELECT count(*) FROM reset)::int AS reset`;

export const CONVERSATION_STATE = `
  SELECT w.conversation_id, coalesce(rc.unanswered_count, 0) AS unanswered_count, rc.disabled_at, rc.disabled_reason
  FROM (SELECT $1::uuid AS conversation_id) w LEFT JOIN reengagement_conversations rc ON rc.conversation_id = w.conversation_id`;

export const ENABLE_CONVERSATION = `
  UPDATE reengagement_conversations SET disabled_at = NULL, disabled_reason = NULL, unanswered_count = 0, updated_at = now()
  WHERE conversation_id = $1 RETURNING conversation_id, unanswered_count, disabled_at, disabled_reason`;
