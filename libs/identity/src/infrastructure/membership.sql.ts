// SQL of memberships and invitations. "tenant" queries run through Database.inTenant (row-level
// security applies; the organization filter is repeated so the intent is visible); "system" ones
// run before an organization is known (accepting an invitation) or on system tables.

export interface MemberRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  role: string;
  is_online: boolean;
  created_at: Date;
}

export interface InvitationRow {
  id: string;
  email: string;
  role: string;
  expires_at: Date;
  created_at: Date;
}

// tenant: created_at is when the user joined this organization.
export const LIST_MEMBERS = `
  SELECT u.id, u.email, u.first_name, u.last_name, m.role, u.is_online, m.created_at
  FROM memberships m JOIN users u ON u.id = m.user_id
  WHERE m.organization_id = $1 ORDER BY m.created_at, u.id`;

export const MEMBER_BY_ID = `
  SELECT u.id, u.email, u.first_name, u.last_name, m.role, u.is_online, m.created_at
  FROM memberships m JOIN users u ON u.id = m.user_id
  WHERE m.organization_id = $1 AND m.user_id = $2`;

export const IS_MEMBER_EMAIL = `
  SELECT EXISTS (SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND u.email = $2) AS member`;

// tenant: serializes invitations of one address to one organization (the open-invitation index
// would otherwise turn a double click into a unique violation).
export const LOCK_INVITATION_ADDRESS = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`;

export const REVOKE_OPEN_INVITATIONS_OF_EMAIL = `
  UPDATE invitations SET revoked_at = now()
  WHERE organization_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL`;

export const INSERT_INVITATION = `
  INSERT INTO invitations (organization_id, email, role, token_hash, invited_by, expires_at)
  VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6))
  RETURNING id, email, role, expires_at, created_at`;

export const LIST_OPEN_INVITATIONS = `
  SELECT id, email, role, expires_at, created_at FROM invitations
  WHERE organization_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL ORDER BY created_at DESC, id`;

export const REVOKE_INVITATION = `
  UPDATE invitations SET revoked_at = now()
  WHERE organization_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL`;

export const ORGANIZATION_NAME = `SELECT name FROM organizations WHERE id = $1`;

// tenant: every role change and removal locks the organization's OWNER rows first (always in the
// same order), so two of them cannot both see "another owner remains" and leave none.
export const LOCK_OWNERS = `SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'OWNER' ORDER BY user_id FOR UPDATE`;

export const MEMBERSHIP_FOR_UPDATE = `SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2 FOR UPDATE`;

export const ROLE_OF = `SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`;

export const UPDATE_ROLE = `UPDATE memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2`;

export const DELETE_MEMBERSHIP = `DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2`;

// system: refresh_tokens is not a tenant table.
export const REVOKE_ORGANIZATION_SESSIONS = `
  UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND organization_id = $2 AND revoked_at IS NULL`;

// system: the row lock makes an invitation single use even under concurrent accepts.
export const INVITATION_BY_TOKEN_FOR_UPDATE = `
  SELECT id, organization_id, email, role, accepted_at, revoked_at, expires_at <= now() AS expired
  FROM invitations WHERE token_hash = $1 FOR UPDATE`;

export const INVITATION_PREVIEW = `
  SELECT i.email, i.role, i.expires_at, i.accepted_at, i.revoked_at, i.expires_at <= now() AS expired, o.name AS organization_name
  FROM invitations i JOIN organizations o ON o.id = i.organization_id WHERE i.token_hash = $1`;

export const USER_BY_EMAIL_FOR_INVITATION = `SELECT id, password_hash, status FROM users WHERE email = $1`;

// The invitee proved the address by opening the emailed link.
export const INSERT_INVITED_USER = `
  INSERT INTO users (email, password_hash, first_name, last_name, email_confirmed_at) VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (email) DO NOTHING RETURNING id`;

export const CONFIRM_EMAIL = `UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = $1`;

export const INSERT_MEMBERSHIP = `
  INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`;

export const MARK_INVITATION_ACCEPTED = `UPDATE invitations SET accepted_at = now(), accepted_user_id = $2 WHERE id = $1`;
