import { tableDefinition } from '@engage/platform';
import { column, declareTable } from '@engage/shared-kernel';

// The identity tables the data API serves. Members of an organization read each other's profiles
// (assignee pickers, owner embeds); each user writes only their own (ProfilesWriter, which also
// decides which columns a user may change). profiles is a view: PostgreSQL reports every column
// of a view as nullable, and the declaration says what the catalogue says.
const nullable = { nullable: true } as const;

export const PROFILES = declareTable({
  name: 'profiles',
  columns: {
    id: column('uuid', nullable),
    organization_id: column('uuid', nullable),
    first_name: column('text', { nullable: true, api: 'write' }),
    last_name: column('text', { nullable: true, api: 'write' }),
    email: column('text', nullable),
    role: column('text', nullable),
    avatar_url: column('text', { nullable: true, api: 'write' }),
    onboarding_completed: column('boolean', { nullable: true, api: 'write' }),
    email_confirmed: column('boolean', nullable),
    is_online: column('boolean', nullable),
    created_at: column('timestamptz', nullable),
  },
});

export const IDENTITY_TABLES = { profiles: tableDefinition(PROFILES, { writable: true }) };
