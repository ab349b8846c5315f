import { Injectable } from '@nestjs/common';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { namedColumns, type RecordWriter, type Tx } from '@engage/platform';
import { PROFILES } from '../infrastructure/exposed-tables';

type ProfileColumn = keyof typeof PROFILES.columns & string;

// The columns a user may change: those the declaration marks writable.
const WRITABLE = (Object.keys(PROFILES.columns) as ProfileColumn[]).filter((name) => PROFILES.columns[name].api === 'write');

const RULES: Partial<Record<ProfileColumn, [(value: unknown) => boolean, string]>> = {
  first_name: [(v) => typeof v === 'string' && v.trim() !== '' && v.length <= 100, 'a non-empty string of at most 100 characters'],
  last_name: [(v) => v === null || (typeof v === 'string' && v.length <= 100), 'a string of at most 100 characters, or null'],
  avatar_url: [(v) => v === null || (typeof v === 'string' && v.length <= 2048), 'a string of at most 2048 characters, or null'],
  onboarding_completed: [(v) => typeof v === 'boolean', 'true or false'],
};

// A column declared writable without a rule stops the service at start-up, not at its first write.
for (const name of WRITABLE) if (!RULES[name]) throw new Error(`profiles.${name} is declared writable but has no rule in ProfilesWriter`);

// The profile's columns live on users; only the columns sent are set, each by its name.
const updateOwnProfile = (sent: readonly ProfileColumn[]) => {
  const columns = namedColumns(PROFILES, sent);
  const set = sent.length > 0 ? `${columns.assignments(2)}, ` : '';
  return { sql: `UPDATE users SET ${set}updated_at = now() WHERE id = $1 RETURNING id`, values: columns.values };
};

const denied = (message: string, hint?: string) => new DomainError('forbidden', '42501', message, undefined, hint);

// Writes of /rest/v1/profiles (§2 Profile), in the caller's transaction: each user changes only
// their own row (row-level security holds the same rule) and only the columns the spec allows;
// email and role stay read-only, and profiles come and go with sign-up and membership only.
@Injectable()
export class ProfilesWriter implements RecordWriter {
  async create(): Promise<object> {
    throw denied('permission denied for table profiles', 'profiles are created by sign-up and invitations');
  }

  async remove(): Promise<void> {
    throw denied('permission denied for table profiles', 'a profile goes with its membership (DELETE /functions/v1/members)');
  }

  async update(tx: Tx, ctx: RequestContext, id: string, changes: Record<string, unknown>): Promise<object> {
    const refused = Object.keys(changes).filter((key) => !(WRITABLE as readonly string[]).includes(key));
    if (refused.length > 0) throw denied(`permission denied to update column ${refused.join(', ')} of profiles`, `writable columns: ${WRITABLE.join(', ')}`);
    if (id !== ctx.userId) throw denied('a profile can be changed only by its own user');
    const sent = WRITABLE.filter((key) => key in changes);
    for (const key of sent) checked(changes, key);
    const statement = updateOwnProfile(sent);
    const [row] = await tx.query<{ id: string }>(statement.sql, [id, ...statement.values(changes as Record<ProfileColumn, unknown>)]);
    if (!row) throw denied('a profile can be changed only by its own user');
    return row;
  }
}

function checked(changes: Record<string, unknown>, key: ProfileColumn): void {
  const rule = RULES[key]!;
  if (!rule[0](changes[key])) throw new DomainError('validation', '22P02', `${key} must be ${rule[1]}`, { field: key });
}
