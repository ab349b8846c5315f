import { CHANNEL_ACCOUNT_COLUMNS } from '../../infrastructure/messaging.sql';

// SQL of the email channel (tenant transactions unless the name says SYSTEM).

export interface EmailChannelSecret {
  id: string;
  name: string;
  is_active: boolean;
  email_settings: { address: string; imap: EndpointSettings; smtp: EndpointSettings } | null;
  imap_password_sealed: string | null;
  smtp_password_sealed: string | null;
}

export interface EndpointSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  tls_ca?: string;
}

export const INSERT_EMAIL_CHANNEL = `
  WITH account AS (
    INSERT INTO channel_accounts (organization_id, kind, name, external_account_id, email_settings, imap_password_sealed, smtp_password_sealed)
    VALUES (app_org_id(), 'email', $1, $2, $3, $4, $5) RETURNING ${CHANNEL_ACCOUNT_COLUMNS}),
  mailbox AS (INSERT INTO email_mailboxes (organization_id, channel_account_id) SELECT organization_id, id FROM account)
  SELECT * FROM account`;

export const EMAIL_CHANNEL_SECRET = `
  SELECT id, name, is_active, email_settings, imap_password_sealed, smtp_password_sealed FROM channel_accounts WHERE id = $1 AND kind = 'email'`;

// SYSTEM: the active email channels no reader holds and no run is queued for (a queued run lost
// for 5 minutes is queued again), marked queued, for the schedule that starts their readers.
// MATERIALIZED: chosen once whatever the plan (as the job claim, platform's jobs.sql.ts).
export const SYSTEM_QUEUE_MAILBOXES = `
  WITH due AS MATERIALIZED (
    SELECT d.organization_id, d.channel_account_id FROM email_mailboxes d
    JOIN channel_accounts a ON a.organization_id = d.organization_id AND a.id = d.channel_account_id
    WHERE a.is_active AND a.kind = 'email' AND (d.lease_until IS NULL OR d.lease_until < now())
      AND (d.queued_at IS NULL OR d.queued_at < now() - interval '5 minutes')
    ORDER BY d.last_synced_at NULLS FIRST LIMIT $1 FOR UPDATE OF d SKIP LOCKED)
  UPDATE email_mailboxes m SET queued_at = now()
  FROM due WHERE m.organization_id = due.organization_id AND m.channel_account_id = due.channel_account_id
  RETURNING m.organization_id, m.channel_account_id`;

// The lease: one reader per mailbox. Taken when free or lapsed (a reader that died), renewed by its holder.
export const TAKE_MAILBOX_LEASE = `
  UPDATE email_mailboxes SET lease_token = $2, lease_until = now() + make_interval(secs => $3 / 1000.0), queued_at = NULL
  WHERE channel_account_id = $1 AND (lease_until IS NULL OR lease_until < now() OR lease_token = $2)
  RETURNING uid_validity, last_uid`;

export const RELEASE_MAILBOX_LEASE = `
  UPDATE email_mailboxes SET lease_token = NULL, lease_until = NULL, queued_at = NULL, last_synced_at = now(), last_error = $3
  WHERE channel_account_id = $1 AND lease_token = $2`;

// The high-water mark moves in the transaction that stores the message, and only for the lease's holder.
export const ADVANCE_MAILBOX = `
  UPDATE email_mailboxes SET uid_validity = $3, last_uid = $4, lease_until = now() + make_interval(secs => $5 / 1000.0)
  WHERE channel_account_id = $1 AND lease_token = $2 AND lease_until > now() RETURNING last_uid`;

// $2 the de-duplication key (external_id), $3 the Message-ID when the mail has one.
export const EMAIL_SEEN = `SELECT 1 FROM messages WHERE channel_account_id = $1 AND (external_id = $2 OR email_message_id = $3) LIMIT 1`;

// A mail that could not be stored: how many runs in a row failed on it.
export const MAILBOX_FAILED = `
  UPDATE email_mailboxes SET failed_runs = CASE WHEN failed_uid = $3 THEN failed_runs + 1 ELSE 1 END, failed_uid = $3
  WHERE channel_account_id = $1 AND lease_token = $2 RETURNING failed_runs`;

export const MAILBOX_SKIP = `
  UPDATE email_mailboxes SET uid_validity = $3, last_uid = $4, last_error = $5 WHERE channel_account_id = $1 AND lease_token = $2 RETURNING last_uid`;

// Threading by headers: the newest message of the channel carrying one of the ids ($2).
export const CONVERSATION_BY_MESSAGE_IDS = `
  SELECT c.* FROM messages m JOIN conversations c ON c.organization_id = m.organization_id AND c.id = m.conversation_id
  WHERE m.channel_account_id = $1 AND m.email_message_id = ANY($2::text[]) ORDER BY m.created_at DESC LIMIT 1`;

// The fallback: the same subject (without Re:/Fwd: prefixes) from the same contact within the window.
export const CONVERSATION_BY_SUBJECT = `
  SELECT * FROM conversations WHERE channel_account_id = $1 AND contact_id = $2 AND lower(email_subject) = lower($3) AND last_message_at > $4
  ORDER BY last_message_at DESC LIMIT 1`;

// A resolved conversation the mail belongs to opens again, unless the contact has another unresolved one there.
export const REOPEN_CONVERSATION = `
  UPDATE conversations c SET status = 'OPEN', snoozed_until = NULL, updated_at = now() WHERE c.id = $1 AND c.status = 'RESOLVED'
  AND NOT EXISTS (SELECT 1 FROM conversations o WHERE o.organization_id = c.organization_id AND o.contact_id = c.contact_id
    AND o.channel_account_id = c.channel_account_id AND o.status <> 'RESOLVED')
  RETURNING *`;

export const SET_EMAIL_SUBJECT = `UPDATE conversations SET email_subject = $2 WHERE id = $1 AND email_subject IS NULL`;

export const INSERT_EMAIL_MESSAGE = `
  INSERT INTO messages (
    organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, external_id, metadata, email_message_id, origin)
  VALUES (app_org_id(), $1, $2, $3, 'INBOUND', 'DELIVERED', $4, $5, $6, $7, $8, 'customer')
  ON CONFLICT DO NOTHING RETURNING *`;

// What a reply threads on: the conversation's newest message with a Message-ID, and its references.
export const THREAD_TAIL = `
  SELECT email_message_id, metadata->'email'->'references' AS refs FROM messages
  WHERE conversation_id = $1 AND email_message_id IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 1`;
