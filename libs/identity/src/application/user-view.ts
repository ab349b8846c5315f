import type { UserRow } from '../infrastructure/identity.sql';

// What clients see of a user; never the password hash.
export interface UserView {
  id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  avatar_url: string | null;
  organization_id: string;
  role: string;
  email_confirmed_at: string | null;
  new_email: string | null;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toUserView(row: UserRow): UserView {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    avatar_url: row.avatar_url,
    organization_id: row.organization_id,
    role: row.role,
    email_confirmed_at: row.email_confirmed_at?.toISOString() ?? null,
    new_email: row.new_email ?? null,
    last_sign_in_at: row.last_sign_in_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
