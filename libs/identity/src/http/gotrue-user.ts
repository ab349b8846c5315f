import type { UserView } from '../application/user-view';

// The user object of GoTrue, which auth-js stores and returns from getUser().
export function toGoTrueUser(user: UserView) {
  return {
    id: user.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: user.email,
    email_confirmed_at: user.email_confirmed_at,
    ...(user.new_email ? { new_email: user.new_email } : {}),
    phone: '',
    confirmed_at: user.email_confirmed_at,
    last_sign_in_at: user.last_sign_in_at,
    app_metadata: { provider: 'email', providers: ['email'], organization_id: user.organization_id, role: user.role },
    user_metadata: { first_name: user.first_name, last_name: user.last_name, avatar_url: user.avatar_url },
    identities: [],
    created_at: user.created_at,
    updated_at: user.updated_at,
    is_anonymous: false,
  };
}
