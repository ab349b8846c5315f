import { Injectable } from '@nestjs/common';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { RecordWriter, Tx } from '@engage/platform';

const WRITABLE = ['first_name', 'last_name', 'avatar_url', 'onboarding_completed'] as const;

const UPDATE_OWN_PROFILE = `
  UPDATE users SET first_name = CASE WHEN $6 THEN $2 ELSE first_name END,
         last_name = CASE WHEN $7 THEN $3 ELSE last_name END,
         avatar_url = CASE WHEN $8 THEN $4 ELSE avatar_url END,
         onboarding_completed = CASE WHEN $9 THEN $5 ELSE onboarding_completed END, updated_at = now()
  WHERE id = $1 RETURNING id`;

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
    const sent = (key: string) => key in changes;
    const params = [
      id,
      checked(changes, 'first_name', (v) => typeof v === 'string' && v.trim() !== '' && v.length <= 100, 'a non-empty string of at most 100 characters'),
      checked(changes, 'last_name', (v) => v === null || (typeof v === 'string' && v.length <= 100), 'a string of at most 100 characters, or null'),
      checked(changes, 'avatar_url', (v) => v === null || (typeof v === 'string' && v.length <= 2048), 'a string of at most 2048 characters, or null'),
      checked(changes, 'onboarding_completed', (v) => typeof v === 'boolean', 'true or false'),
      ...WRITABLE.map(sent),
    ];
    const [row] = await tx.query<{ id: string }>(UPDATE_OWN_PROFILE, params);
    if (!row) throw denied('a profile can be changed only by its own user');
    return row;
  }
}

function checked(changes: Record<string, unknown>, key: string, valid: (value: unknown) => boolean, rule: string): unknown {
  if (!(key in changes)) return null;
  const value = changes[key];
  if (!valid(value)) throw new DomainError('validation', '22P02', `${key} must be ${rule}`, { field: key });
  return value;
}
