import { json } from '@engage/platform';
import { ROLES } from '@engage/shared-kernel';

const { uuid, text, at, integer, boolean, nullable, arrayOf, object, oneOfValues } = json;

export const ROLE = oneOfValues(ROLES);

// GoTrue's user object (gotrue-user.ts), as auth-js stores it. new_email only during an email change.
export const GOTRUE_USER = object(
  {
    id: uuid,
    aud: oneOfValues(['authenticated']),
    role: oneOfValues(['authenticated']),
    email: text,
    email_confirmed_at: nullable(at),
    new_email: text,
    phone: text,
    confirmed_at: nullable(at),
    last_sign_in_at: nullable(at),
    app_metadata: object({ provider: oneOfValues(['email']), providers: arrayOf(text), organization_id: uuid, role: ROLE }),
    user_metadata: object({ first_name: text, last_name: nullable(text), avatar_url: nullable(text) }),
    identities: arrayOf({ type: 'object' }),
    created_at: at,
    updated_at: at,
    is_anonymous: boolean,
  },
  ['new_email'],
);

// A session as POST /token and the verify link answer it; expires_at is in seconds since the epoch.
export const GOTRUE_SESSION = object({
  access_token: text,
  token_type: oneOfValues(['bearer']),
  expires_in: integer,
  expires_at: integer,
  refresh_token: text,
  user: GOTRUE_USER,
});

// §4.4 POST /login.
export const MOBILE_LOGIN = object({
  access_token: text,
  refresh_token: text,
  expires_in: integer,
  user: object({ id: uuid, first_name: text, last_name: nullable(text), email: text, organization_id: uuid, avatar_url: nullable(text) }),
});
