// The identity tables the data API reads. Profiles are written through PATCH /rest/v1/profiles
// (http/profiles.controller.ts), which serves the route itself.
export const IDENTITY_TABLES = {
  profiles: {
    name: 'profiles',
    columns: {
      id: 'uuid', organization_id: 'uuid', first_name: 'text', last_name: 'text', email: 'text', role: 'text', avatar_url: 'text',
      onboarding_completed: 'bool', email_confirmed: 'bool', is_online: 'bool', created_at: 'timestamptz',
    },
    readable: ['id', 'organization_id', 'first_name', 'last_name', 'email', 'role', 'avatar_url', 'onboarding_completed', 'email_confirmed', 'is_online', 'created_at'],
  },
} as const;
