// SQL of the identity context. Queries marked "system" run through Database.asSystem because they
// happen before an organization is known (sign-in, token refresh, API key lookup).

export interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string | null;
  avatar_url: string | null;
  email_confirmed_at: Date | null;
  new_email?: string | null;
  status: 'active' | 'deactivated' | 'suspended';
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  organization_id: string;
  role: string;
}

// system: the user with their first membership (the organization they sign in to).
export const USER_BY_EMAIL = `
  SELECT u.*, m.organization_id, m.role FROM users u
  JOIN LATERAL (SELECT organization_id, role FROM memberships WHERE user_id = u.id ORDER BY created_at, organization_id LIMIT 1) m ON true
  WHERE u.email = $1`;

// system: the user by id, with their first membership.
export const USER_BY_ID = `
  SELECT u.*, m.organization_id, m.role FROM users u
  JOIN LATERAL (SELECT organization_id, role FROM memberships WHERE user_id = u.id ORDER BY created_at, organization_id LIMIT 1) m ON true
  WHERE u.id = $1`;

// system: the user as a member of one organization (null when no longer a member).
export const USER_IN_ORGANIZATION = `
  SELECT u.*, m.organization_id, m.role FROM users u
  JOIN memberships m ON m.user_id = u.id AND m.organization_id = $2
  WHERE u.id = $1`;

export const MARK_SIGNED_IN = `UPDATE users SET last_sign_in_at = now() WHERE id = $1`;

export const INSERT_REFRESH_TOKEN = `
  INSERT INTO refresh_tokens (family_id, user_id, organization_id, token_hash, expires_at)
  VALUES ($1, $2, $3, $4, now() + make_interval(days => $5))`;

export interface RefreshTokenRow {
  id: string;
  family_id: string;
  user_id: string;
  organization_id: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  in_grace: boolean;
}

// system: lock the presented token's row so two concurrent refreshes cannot both rotate it.
// in_grace: used less than $2 seconds ago (a concurrent refresh, not a replay).
export const REFRESH_TOKEN_FOR_UPDATE = `
  SELECT id, family_id, user_id, organization_id, expires_at, used_at, revoked_at,
         coalesce(used_at > clock_timestamp() - make_interval(secs => $2), false) AS in_grace
  FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE`;

export const REFRESH_TOKEN_BY_HASH = `
  SELECT id, family_id, user_id, organization_id, expires_at, used_at, revoked_at, false AS in_grace
  FROM refresh_tokens WHERE token_hash = $1`;

export const MARK_REFRESH_USED = `UPDATE refresh_tokens SET used_at = now() WHERE id = $1`;

export const REVOKE_FAMILY = `UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`;

export const REVOKE_USER_SESSIONS = `UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`;

// Every session of the user but $2 (the one making a password change, or signing out the others).
export const REVOKE_OTHER_SESSIONS = `UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND family_id <> $2 AND revoked_at IS NULL`;

// When the session (family) was opened by a sign-in: its first token.
export const SESSION_SIGNED_IN_AT = `SELECT min(created_at) AS signed_in_at FROM refresh_tokens WHERE family_id = $1`;

export const API_KEY_BY_HASH = `SELECT id, organization_id, last_used_at FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`;

export const TOUCH_API_KEY = `UPDATE api_keys SET last_used_at = now() WHERE id = $1`;

// Fixed-window counter; returns the count after this hit.
export const HIT_RATE_LIMIT = `
  INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1)
  ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
  RETURNING count, extract(epoch FROM window_start)::float AS window_start`;

// Every limit's window is shorter than a day.
export const PURGE_RATE_LIMITS = `
  WITH gone AS (DELETE FROM rate_limit_counters WHERE window_start < now() - interval '1 day' RETURNING 1)
  SELECT count(*)::int AS deleted FROM gone`;

// system: one round trip per authenticated request: account state, current role, live session.
export const SESSION_CHECK = `
  SELECT u.status, m.role,
         EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = $3 AND t.revoked_at IS NULL) AS alive
  FROM users u JOIN memberships m ON m.user_id = u.id AND m.organization_id = $2
  WHERE u.id = $1`;
