// SQL of bot flows and sessions; every statement runs inside inTenant (row-level security) unless
// it says system.

export const INSERT_FLOW = `
  INSERT INTO bot_flows (organization_id, name, channel_account_ids, trigger, definition, is_active, settings, created_by)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7) RETURNING *`;

export const FLOW_BY_ID = `SELECT * FROM bot_flows WHERE id = $1`;
export const FLOW_FOR_UPDATE = `SELECT * FROM bot_flows WHERE id = $1 FOR UPDATE`;

export const UPDATE_FLOW = `
  UPDATE bot_flows SET name = $2, channel_account_ids = $3, trigger = $4, definition = $5, is_active = $6, settings = $7, updated_at = now()
  WHERE id = $1 RETURNING *`;

export const DELETE_FLOW = `DELETE FROM bot_flows WHERE id = $1`;

// Messaging's published read of its channel accounts (the reader's row-level security applies).
export const KNOWN_CHANNEL_ACCOUNTS = `SELECT id::text AS id FROM messaging_channel_accounts WHERE id = ANY($1::uuid[])`;

// The next version of a locked flow, stored whole, and the flow pointed at it.
export const INSERT_VERSION = `
  INSERT INTO bot_flow_versions (organization_id, bot_flow_id, version, definition, settings, published_by, published_at)
  VALUES (app_org_id(), $1, coalesce((SELECT max(version) FROM bot_flow_versions WHERE bot_flow_id = $1), 0) + 1, $2, $3, $4, $5)
  RETURNING version, published_at`;
export const MARK_PUBLISHED = `UPDATE bot_flows SET published_version = $2, published_at = $3 WHERE id = $1`;

export const VERSION_OF = `SELECT definition, settings FROM bot_flow_versions WHERE bot_flow_id = $1 AND version = $2`;

// The active, published flows on a channel account, with their published settings.
export const FLOWS_ON_ACCOUNT = `
  SELECT f.id, f.trigger, f.published_version AS version, f.created_at, v.settings
  FROM bot_flows f JOIN bot_flow_versions v ON v.organization_id = f.organization_id AND v.bot_flow_id = f.id AND v.version = f.published_version
  WHERE f.is_active AND f.published_version IS NOT NULL AND f.channel_account_ids @> ARRAY[$1::text]
  ORDER BY f.created_at, f.id`;

export const PUBLISHED_FLOW = `
  SELECT f.id, f.published_version AS version, v.settings
  FROM bot_flows f JOIN bot_flow_versions v ON v.organization_id = f.organization_id AND v.bot_flow_id = f.id AND v.version = f.published_version
  WHERE f.id = $1 AND f.is_active`;

// The conversation's open session, with its version's settings.
export const OPEN_SESSION = `
  SELECT s.*, v.settings FROM bot_sessions s
  JOIN bot_flow_versions v ON v.organization_id = s.organization_id AND v.bot_flow_id = s.bot_flow_id AND v.version = s.version
  WHERE s.conversation_id = $1 AND s.status IN ('active', 'waiting')`;

export const LAST_SESSION = `
  SELECT status, end_reason, updated_at FROM bot_sessions WHERE conversation_id = $1 ORDER BY started_at DESC, id DESC LIMIT 1`;

// Messaging's published message facts: whether a message is the first of its conversation.
export const EARLIER_MESSAGE = `
  SELECT 1 FROM messaging_message_facts WHERE conversation_id = $1 AND id <> $2 AND created_at <= $3 LIMIT 1`;

// A new session, unless the conversation has an open one (one at a time).
export const START_SESSION = `
  INSERT INTO bot_sessions (organization_id, conversation_id, contact_id, bot_flow_id, version, status, current_node, expires_at, started_at, updated_at)
  VALUES (app_org_id(), $1, $2, $3, $4, 'active', $5, $6, $7, $7)
  ON CONFLICT (organization_id, conversation_id) WHERE status IN ('active', 'waiting') DO NOTHING RETURNING *`;

// A customer's message added to the answer being gathered: only a message written after the
// question was put (waiting_since, set as it is sent), each message once. The answer is due a second after its first message.
export const ADD_TO_ANSWER = `
  UPDATE bot_sessions SET pending = pending || jsonb_build_array(jsonb_build_object('id', $2::text, 'text', $3::text)),
    answer_due_at = coalesce(answer_due_at, $4::timestamptz + interval '1 second')
  WHERE id = $1 AND status IN ('active', 'waiting') AND waiting_since < $4::timestamptz AND NOT pending @> jsonb_build_array(jsonb_build_object('id', $2::text))
  RETURNING answer_due_at`;

// The gathered answer taken (waiting becomes active), once, when it is due; or the ask's timeout.
export const TAKE_ANSWER = `
  WITH taken AS (SELECT id, pending FROM bot_sessions WHERE id = $1 AND status = 'waiting' AND answer_due_at <= $2 FOR UPDATE)
  UPDATE bot_sessions s SET status = 'active', pending = '[]', answer_due_at = NULL, waiting_since = NULL, timeout_at = NULL, expires_at = $3, updated_at = $2
  FROM taken WHERE s.id = taken.id RETURNING s.*, taken.pending AS answer`;
export const TAKE_TIMEOUT = `
  UPDATE bot_sessions SET status = 'active', pending = '[]', answer_due_at = NULL, waiting_since = NULL, timeout_at = NULL, expires_at = $3, updated_at = $2
  WHERE id = $1 AND status = 'waiting' AND timeout_at <= $2 AND answer_due_at IS NULL RETURNING *`;

export const ANSWER_DUE_AT = `SELECT status, answer_due_at FROM bot_sessions WHERE id = $1`;

// The question of an ask is being put: answers are the customer's messages written from now on.
export const MARK_ASKING = `UPDATE bot_sessions SET current_node = $2, waiting_since = $3 WHERE id = $1 AND status = 'active'`;
export const SESSION_STATUS = `SELECT status FROM bot_sessions WHERE id = $1`;

// Where an active session's steps brought it: waiting at an ask, or ended. Nothing when it was
// stopped meanwhile (an agent's reply).
export const SAVE_STEP = `
  UPDATE bot_sessions SET status = $2, end_reason = $3, current_node = $4, variables = $5, retries = $6, handed_to = $7,
    timeout_at = $8, expires_at = coalesce($9, expires_at), updated_at = $10,
    pending = CASE WHEN $2 = 'waiting' THEN pending ELSE '[]' END, answer_due_at = CASE WHEN $2 = 'waiting' THEN answer_due_at END
  WHERE id = $1 AND status = 'active' RETURNING id, answer_due_at`;

export const STOP_OPEN_SESSIONS = `
  UPDATE bot_sessions SET status = 'stopped', end_reason = $2, pending = '[]', answer_due_at = NULL, timeout_at = NULL, updated_at = $3
  WHERE conversation_id = $1 AND status IN ('active', 'waiting') AND started_at < $4 RETURNING id`;

export const STOP_SESSION = `
  UPDATE bot_sessions SET status = 'stopped', end_reason = $2, pending = '[]', answer_due_at = NULL, timeout_at = NULL, updated_at = $3
  WHERE id = $1 AND status IN ('active', 'waiting') RETURNING *`;
export const SESSION_BY_ID = `SELECT * FROM bot_sessions WHERE id = $1`;

// The member this flow's round-robin hand-off chose last.
export const LAST_HANDOFF = `
  SELECT handed_to FROM bot_sessions WHERE bot_flow_id = $1 AND handed_to IS NOT NULL AND end_reason = 'handoff' ORDER BY updated_at DESC, id DESC LIMIT 1`;

// system: open sessions past their deadline expire, of every organization.
export const EXPIRE_SESSIONS = `
  UPDATE bot_sessions SET status = 'expired', end_reason = 'no_answer', pending = '[]', answer_due_at = NULL, timeout_at = NULL, updated_at = $1
  WHERE id IN (SELECT id FROM bot_sessions WHERE status IN ('active', 'waiting') AND expires_at <= $1 LIMIT $2)`;

// system: sessions whose steps have been under way (active, not moved) since before $2: a process
// that died in the middle of a step left them; stopped, so the conversation is the people's.
export const STOP_STALLED_SESSIONS = `
  UPDATE bot_sessions SET status = 'stopped', end_reason = 'stalled', pending = '[]', answer_due_at = NULL, timeout_at = NULL, updated_at = $1
  WHERE id IN (SELECT id FROM bot_sessions WHERE status = 'active' AND updated_at <= $2 LIMIT $3)`;

// system: waiting sessions whose gathered answer or ask timeout is due.
export const DUE_SESSIONS = `
  SELECT id, organization_id, answer_due_at IS NOT NULL AS answer FROM bot_sessions
  WHERE status = 'waiting' AND least(answer_due_at, timeout_at) <= $1 ORDER BY least(answer_due_at, timeout_at) LIMIT $2`;
