import { json } from '@engage/platform';
import { ROLE } from './auth.responses';

// What the organization's team routes answer: members, invitations, API keys and presence.
const { uuid, text, at, boolean, arrayOf, object, oneOfValues } = json;

export const MEMBER = object({ id: uuid, email: text, first_name: text, last_name: json.nullable(text), role: ROLE, is_online: boolean, created_at: at });
export const MEMBERS = object({ members: arrayOf(MEMBER) });

export const INVITATION = object({ id: uuid, email: text, role: ROLE, expires_at: at, created_at: at });
export const INVITATIONS = object({ invitations: arrayOf(INVITATION) });

// What the emailed link shows, and how to accept.
export const INVITATION_PREVIEW = object({
  invitation: object({ email: text, role: ROLE, organization_name: text, expires_at: at }),
  accept: object({ method: oneOfValues(['POST']), url: text, body: arrayOf(text) }),
});
export const INVITATION_ACCEPTED = object({ user_id: uuid, organization_id: uuid, role: ROLE });

const API_KEY = { id: uuid, name: text, prefix: text, created_at: at, last_used_at: json.nullable(at) };
// The full key appears here only, once.
export const API_KEY_CREATED = object({ ...API_KEY, api_key: text });
export const API_KEYS = object({ api_keys: arrayOf(object(API_KEY)) });

export const PRESENCE = object({ is_online: boolean, last_seen_at: at });
