import { CHANNEL_ACCOUNT_COLUMNS } from '../../infrastructure/messaging.sql';

// SQL of the SMS channel (docs/messaging.md, SMS).

export interface SmsChannelRow {
  id: string;
  organization_id: string;
  kind: string;
  is_active: boolean;
  external_account_id: string | null;
  provider_account_id: string | null;
  access_token_sealed: string | null;
}

export const INSERT_SMS_CHANNEL = `
  INSERT INTO channel_accounts (organization_id, kind, name, external_account_id, provider_account_id, access_token_sealed)
  VALUES (app_org_id(), 'sms', $1, $2, $3, $4)
  RETURNING ${CHANNEL_ACCOUNT_COLUMNS}`;

// The account with its sealed token: read only to send, check or verify with it.
export const SMS_CHANNEL = `
  SELECT id, organization_id, kind, is_active, external_account_id, provider_account_id, access_token_sealed FROM channel_accounts WHERE id = $1`;

// SYSTEM: the webhook's account (any organization's): only an active SMS account is answered.
export const SYSTEM_SMS_CHANNEL = `${SMS_CHANNEL} AND kind = 'sms' AND is_active`;

// SYSTEM: a verified callback stored for the inbound worker, in the account's organization.
export const SYSTEM_STORE_SMS_EVENT = `
  INSERT INTO inbound_events (organization_id, channel_account_id, payload)
  SELECT organization_id, id, $2::jsonb FROM channel_accounts WHERE id = $1 AND kind = 'sms' AND is_active
  RETURNING id`;

// The contact's latest opt-out or opt-in keyword on the channel ($3: both lists, upper case).
export const LAST_SMS_KEYWORD = `
  SELECT upper(btrim(m.content)) AS keyword
  FROM conversations c JOIN messages m ON m.organization_id = c.organization_id AND m.conversation_id = c.id
  WHERE c.contact_id = $1 AND c.channel_account_id = $2 AND m.direction = 'INBOUND' AND upper(btrim(m.content)) = ANY($3::text[])
  ORDER BY m.created_at DESC, m.id DESC LIMIT 1`;
