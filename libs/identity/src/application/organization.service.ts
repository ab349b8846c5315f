import { randomUUID } from 'node:crypto';
import { Conflict, DomainError, isRole, isUuid, NotFound, type RequestContext, type Role } from '@engage/shared-kernel';
import type { Database, SecretBox, Tx } from '@engage/platform';
import { parseBusinessHours } from '../domain/business-hours';
import { organizationCreated } from '../domain/organization-events';
import { assertAcceptablePassword, assertNoNul, normalizeEmail } from '../domain/password-policy';
import { hashPassword } from '../infrastructure/password-hasher';

// Organization settings whose values are secrets: sealed at rest, never returned.
export const SECRET_SETTINGS = new Set(['appgain_api_key', 'zoom_secret_token']);
const SETTING_KEY = /^[a-z][a-z0-9_]{0,62}$/;
// The reporting response target (analytics): at most a week.
const MAX_SLA_TARGET_MINUTES = 10080;

const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

// Creating organizations and users for the admin CLI and the demo seed (sign-up and invitations
// will reuse these).
export class OrganizationService {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  // One transaction: the organization, its OWNER and organization.created exist together or not at all.
  async createOrganization(input: { name: unknown; ownerEmail: unknown; ownerPassword: unknown; ownerFirstName?: string }): Promise<{ organization_id: string; owner_user_id: string }> {
    if (typeof input.name !== 'string' || input.name.trim().length === 0 || input.name.trim().length > 200) {
      throw new DomainError('validation', 'validation_failed', 'organization name must be 1 to 200 characters');
    }
    assertNoNul(input.name, 'organization name');
    const name = input.name.trim();
    const owner = await this.prepareUser({ email: input.ownerEmail, password: input.ownerPassword, role: 'OWNER', firstName: input.ownerFirstName });
    const organizationId = randomUUID();
    return this.db.asSystem(async (tx) => {
      await tx.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, name]);
      const userId = await insertMember(tx, organizationId, owner);
      await tx.emit([organizationCreated(organizationId, name, userId)]);
      return { organization_id: organizationId, owner_user_id: userId };
    });
  }

  async createUser(input: { organizationId: string; email: unknown; password: unknown; role: unknown; firstName?: string }): Promise<{ user_id: string }> {
    if (!isUuid(input.organizationId)) throw new DomainError('validation', 'validation_failed', 'organization id must be a UUID');
    const user = await this.prepareUser(input);
    return this.db.asSystem(async (tx) => {
      const [org] = await tx.query('SELECT 1 FROM organizations WHERE id = $1', [input.organizationId]);
      if (!org) throw NotFound('organization', input.organizationId);
      return { user_id: await insertMember(tx, input.organizationId, user) };
    });
  }

  // Validation and hashing happen before any transaction opens (argon2 takes ~14 ms).
  private async prepareUser(input: { email: unknown; password: unknown; role: unknown; firstName?: string }): Promise<NewMember> {
    if (!isRole(input.role)) throw new DomainError('validation', 'validation_failed', `role must be one of OWNER, ADMIN, AGENT, PROJECT_MANAGER, TEAM_ADMIN`);
    const email = normalizeEmail(input.email);
    assertAcceptablePassword(input.password);
    return { email, role: input.role, passwordHash: await hashPassword(input.password), firstName: input.firstName ?? email.split('@')[0] };
  }

  async setSetting(organizationId: string, key: unknown, value: unknown): Promise<void> {
    if (!isUuid(organizationId)) throw new DomainError('validation', 'validation_failed', 'organization id must be a UUID');
    if (typeof key !== 'string' || !SETTING_KEY.test(key)) throw new DomainError('validation', 'validation_failed', 'setting key must be lower_snake_case, at most 63 characters');
    if (typeof value !== 'string' || value.length > 4096) throw new DomainError('validation', 'validation_failed', 'setting value must be a string of at most 4096 characters');
    assertNoNul(value, 'setting value');
    await this.checkKnownSetting(key, value);
    const stored = SECRET_SETTINGS.has(key) ? { sealed: this.secrets.seal(value) } : value;
    const updated = await this.db.inTenant(systemCtx(organizationId), (tx) =>
      tx.execute(`UPDATE organizations SET settings = jsonb_set(settings, ARRAY[$1::text], $2::jsonb), updated_at = now() WHERE id = $3`, [key, JSON.stringify(stored), organizationId]),
    );
    if (updated === 0) throw NotFound('organization', organizationId);
  }

  // Settings other contexts interpret are checked here, so a bad value is refused when set.
  private async checkKnownSetting(key: string, value: string): Promise<void> {
    if (key === 'time_zone') {
      const [known] = await this.db.systemQuery('SELECT 1 FROM pg_timezone_names WHERE name = $1', [value]);
      if (!known) {
        throw new DomainError('validation', 'validation_failed', `time_zone ${JSON.stringify(value)} is not a known time zone (e.g. Africa/Cairo, UTC)`);
      }
    }
    if (key === 'sla_target_minutes' && !(/^[1-9]\d{0,4}$/.test(value) && Number(value) <= MAX_SLA_TARGET_MINUTES)) {
      throw new DomainError('validation', 'validation_failed', `sla_target_minutes must be a whole number of minutes from 1 to ${MAX_SLA_TARGET_MINUTES}`);
    }
    if (key === 'business_hours') parseBusinessHours(value);
  }

  // Removes a setting (an unset one is not an error).
  async clearSetting(organizationId: string, key: string): Promise<void> {
    if (!isUuid(organizationId)) throw new DomainError('validation', 'validation_failed', 'organization id must be a UUID');
    if (!SETTING_KEY.test(key)) throw new DomainError('validation', 'validation_failed', 'setting key must be lower_snake_case, at most 63 characters');
    const updated = await this.db.inTenant(systemCtx(organizationId), (tx) =>
      tx.execute(`UPDATE organizations SET settings = settings - $1::text, updated_at = now() WHERE id = $2`, [key, organizationId]),
    );
    if (updated === 0) throw NotFound('organization', organizationId);
  }
}

interface NewMember {
  email: string;
  role: Role;
  passwordHash: string;
  firstName: string;
}

async function insertMember(tx: Tx, organizationId: string, member: NewMember): Promise<string> {
  const [user] = await tx.query<{ id: string }>(
    `INSERT INTO users (email, password_hash, first_name, email_confirmed_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (email) DO NOTHING RETURNING id`,
    [member.email, member.passwordHash, member.firstName],
  );
  if (!user) throw Conflict('user_already_exists', 'User already registered', { email: member.email });
  await tx.query('INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)', [organizationId, user.id, member.role]);
  return user.id;
}
