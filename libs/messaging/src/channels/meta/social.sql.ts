// SQL of Messenger and Instagram processing (tenant transactions).

export const CHANNEL_CONTACT = `SELECT contact_id FROM channel_contacts WHERE channel_account_id = $1 AND external_user_id = $2`;

export const INSERT_CHANNEL_CONTACT = `
  INSERT INTO channel_contacts (organization_id, channel_account_id, external_user_id, contact_id) VALUES (app_org_id(), $1, $2, $3)
  ON CONFLICT DO NOTHING RETURNING contact_id`;

// The customer's page-scoped id on a channel, for sends.
export const CONTACT_CHANNEL_ID = `SELECT external_user_id FROM channel_contacts WHERE channel_account_id = $1 AND contact_id = $2 ORDER BY created_at LIMIT 1`;

// A later customer message moves the window; an older one (delivered late) does not.
export const MOVE_WINDOW = `
  UPDATE conversations SET last_customer_message_at = $2, window_closes_at = $3, updated_at = now()
  WHERE id = $1 AND (last_customer_message_at IS NULL OR last_customer_message_at < $2) RETURNING *`;

export const OUTBOUND_BY_EXTERNAL_IDS = `
  SELECT * FROM messages WHERE channel_account_id = $1 AND external_id = ANY($2::text[]) AND direction = 'OUTBOUND' ORDER BY created_at, id FOR UPDATE`;

// Messenger's receipts name a time: every message sent to the customer before it is delivered (or read).
export const OUTBOUND_BEFORE_WATERMARK = `
  SELECT * FROM messages WHERE channel_account_id = $1 AND contact_id = $2 AND direction = 'OUTBOUND' AND status IN ('SENT', 'DELIVERED') AND created_at <= $3
  ORDER BY created_at, id LIMIT 500 FOR UPDATE`;
