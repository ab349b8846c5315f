// The identity tables the data API serves. Members of an organization read each other's profiles
// (assignee pickers, owner embeds); each user writes only their own (ProfilesWriter).
export const IDENTITY_TABLES = {
  profiles: {
    name: 'profiles',
    columns: {
      id: 'uuid', organization_id: 'uuid', first_name: 'text', last_name: 'text', email: 'text', role: 'text', avatar_url: 'text',
      onboarding_completed: 'bool', email_confirmed: 'bool', is_online: 'bool', created_at: 'timestamptz',
    },
    readable: ['id', 'organization_id', 'first_name', 'last_name', 'email', 'role', 'avatar_url', 'onboarding_completed', 'email_confirmed', 'is_online', 'created_at'],
    writable: true,
  },
} as const;
