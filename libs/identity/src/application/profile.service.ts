import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';

export const PROFILE_COLUMNS = ['id', 'first_name', 'last_name', 'email', 'role', 'avatar_url', 'onboarding_completed', 'email_confirmed'] as const;
export type ProfileColumn = (typeof PROFILE_COLUMNS)[number];
const WRITABLE = new Set(['first_name', 'last_name', 'avatar_url', 'onboarding_completed']);

export type Profile = Record<ProfileColumn, unknown>;

export interface ProfileChanges {
  first_name?: unknown;
  last_name?: unknown;
  avatar_url?: unknown;
  onboarding_completed?: unknown;
}

const PROFILE_SQL = `
  SELECT u.id, u.first_name, u.last_name, u.email, m.role, u.avatar_url, u.onboarding_completed,
         (u.email_confirmed_at IS NOT NULL) AS email_confirmed
  FROM users u JOIN memberships m ON m.user_id = u.id AND m.organization_id = $2
  WHERE u.id = $1`;

// One's own profile (§2 Profile). Another user's id reads as no rows, as row-level security would.
export class ProfileService {
  constructor(private readonly db: Database) {}

  async read(ctx: RequestContext, id: string): Promise<Profile[]> {
    if (id !== ctx.userId) return [];
    return this.db.inTenant(ctx, (tx) => tx.query<Profile>(PROFILE_SQL, [id, ctx.organizationId]));
  }

  async update(ctx: RequestContext, id: string, changes: Record<string, unknown>): Promise<Profile[]> {
    const refused = Object.keys(changes).filter((key) => !WRITABLE.has(key));
    if (refused.length > 0) {
      throw new DomainError('forbidden', '42501', `permission denied to update column ${refused.join(', ')} of profiles`, undefined, `writable columns: ${[...WRITABLE].join(', ')}`);
    }
    const value = (key: string, check: (v: unknown) => boolean, rule: string) => {
      const v = changes[key];
      if (v !== undefined && !check(v)) throw new DomainError('validation', '22P02', `${key} must be ${rule}`);
      return v ?? null;
    };
    const shortText = (max: number) => (v: unknown) => v === null || (typeof v === 'string' && v.length <= max && !v.includes('\u0000'));
    const params = [
      value('first_name', (v) => typeof v === 'string' && v.length <= 100 && !v.includes('\u0000'), 'a string of at most 100 characters without NUL'),
      value('last_name', shortText(100), 'a string of at most 100 characters without NUL, or null'),
      value('avatar_url', shortText(2048), 'a string of at most 2048 characters without NUL, or null'),
      value('onboarding_completed', (v) => typeof v === 'boolean', 'true or false'),
    ];
    if (id !== ctx.userId) return [];
    return this.db.asSystem(async (tx) => {
      // last_name and avatar_url may be cleared to null, so "not sent" is tracked separately.
      await tx.query(
        `UPDATE users SET first_name = coalesce($2, first_name),
                last_name = CASE WHEN $6 THEN $3 ELSE last_name END,
                avatar_url = CASE WHEN $7 THEN $4 ELSE avatar_url END,
                onboarding_completed = coalesce($5, onboarding_completed), updated_at = now()
         WHERE id = $1`,
        [id, params[0], params[1], params[2], params[3], 'last_name' in changes, 'avatar_url' in changes],
      );
      return tx.query<Profile>(PROFILE_SQL, [id, ctx.organizationId]);
    });
  }
}
