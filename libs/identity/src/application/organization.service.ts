import { randomUUID } from 'node:crypto';
import { Conflict, DomainError, isRole, isUuid, NotFound, type RequestContext, type Role } from '@engage/shared-kernel';
import type { Database, SecretBox, Tx } from '@engage/platform';
import {
  invalidSetting,
  MAX_SETTING_TEXT,
  SECRET_SETTINGS,
  type SettingDeclaration,
  type SettingLookups,
  SETTING_KEYS,
  settingOf,
} from '../domain/organization-settings';
import { assertAllowed, ORGANIZATION_SETTINGS_MANAGE } from '../domain/permissions';
import { organizationCreated } from '../domain/organization-events';
import { assertAcceptablePassword, assertNoNul, normalizeEmail } from '../domain/password-policy';
import { hashPassword } from '../infrastructure/password-hasher';

// Organization settings whose values are secrets: sealed at rest, never returned.
export { SECRET_SETTINGS } from '../domain/organization-settings';
const SETTING_KEY = /^[a-z][a-z0-9_]{0,62}$/;

const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

// Creating organizations and users for the admin CLI and the demo seed (sign-up and invitations
// will reuse these).
export class OrganizationService {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  // One transaction: the organization, its OWNER and organization.created exist together or not at all.
  async createOrganization(input: {
    name: unknown;
    ownerEmail: unknown;
    ownerPassword: unknown;
    ownerFirstName?: string;
  }): Promise<{ organization_id: string; owner_user_id: string }> {
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

  // The admin CLI's set-org-setting: a declared setting (domain/organization-settings.ts) as text.
  async setSetting(organizationId: string, key: unknown, value: unknown): Promise<void> {
    if (!isUuid(organizationId)) throw new DomainError('validation', 'validation_failed', 'organization id must be a UUID');
    const setting = declaredSetting(key);
    const text = await this.checkedText(key as string, setting, value);
    const stored = setting.sealed ? { sealed: this.secrets.seal(text) } : text;
    const updated = await this.db.inTenant(systemCtx(organizationId), (tx) =>
      tx.execute(`UPDATE organizations SET settings = jsonb_set(settings, ARRAY[$1::text], $2::jsonb), updated_at = now() WHERE id = $3`, [
        key,
        JSON.stringify(stored),
        organizationId,
      ]),
    );
    if (updated === 0) throw NotFound('organization', organizationId);
  }

  // PATCH /functions/v1/organization/settings: OWNER, ADMIN or an API key; each key a declared
  // setting its members set, a JSON value or null (removes it). All are checked before any is
  // written, then written in one statement.
  async changeSettings(ctx: RequestContext, changes: unknown): Promise<void> {
    if (ctx.role !== 'API_KEY') assertAllowed(ctx.role, ORGANIZATION_SETTINGS_MANAGE);
    if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) {
      throw new DomainError('validation', 'validation_failed', 'the body must be an object of settings, e.g. {"time_zone": "Africa/Cairo"}');
    }
    const entries = Object.entries(changes).map(([key, value]) => ({ key, value, setting: writableSetting(key) }));
    const set: Record<string, unknown> = {};
    const cleared: string[] = [];
    for (const { key, value, setting } of entries) {
      if (value === null) {
        cleared.push(key);
        continue;
      }
      const text = await this.checkedText(key, setting, setting.text(key, value));
      set[key] = setting.sealed ? { sealed: this.secrets.seal(text) } : text;
    }
    if (entries.length === 0) return;
    const updated = await this.db.inTenant(ctx, (tx) =>
      tx.execute(`UPDATE organizations SET settings = (settings - $1::text[]) || $2::jsonb, updated_at = now() WHERE id = app_org_id()`, [
        cleared,
        JSON.stringify(set),
      ]),
    );
    if (updated === 0) throw NotFound('organization', ctx.organizationId);
  }

  // The checks every value passes, from the CLI or HTTP: text of at most MAX_SETTING_TEXT characters
  // without NUL, then the setting's own; errors name the setting.
  private async checkedText(key: string, setting: SettingDeclaration, value: unknown): Promise<string> {
    if (typeof value !== 'string' || value.length > MAX_SETTING_TEXT) {
      throw invalidSetting(key, `${key} must be a string of at most ${MAX_SETTING_TEXT} characters`);
    }
    if (value.includes('\u0000')) throw invalidSetting(key, `${key} must not contain NUL characters`);
    await setting.check(key, value, this.lookups);
    return value;
  }

  private readonly lookups: SettingLookups = {
    isTimeZone: async (name) => (await this.db.systemQuery('SELECT 1 FROM pg_timezone_names WHERE name = $1', [name])).length > 0,
  };

  // Removes a setting (an unset one is not an error). Any well-formed key, so the CLI can also
  // remove one no longer declared.
  async clearSetting(organizationId: string, key: string): Promise<void> {
    if (!isUuid(organizationId)) throw new DomainError('validation', 'validation_failed', 'organization id must be a UUID');
    if (!SETTING_KEY.test(key)) throw new DomainError('validation', 'validation_failed', 'setting key must be lower_snake_case, at most 63 characters');
    const updated = await this.db.inTenant(systemCtx(organizationId), (tx) =>
      tx.execute(`UPDATE organizations SET settings = settings - $1::text, updated_at = now() WHERE id = $2`, [key, organizationId]),
    );
    if (updated === 0) throw NotFound('organization', organizationId);
  }
}

const printableKey = (key: string) => JSON.stringify(key.slice(0, 64));

function unknownSetting(key: string, hint = ''): DomainError {
  const message = `unknown setting ${printableKey(key)}${hint} (settings: ${SETTING_KEYS.join(', ')})`;
  return new DomainError('validation', 'unknown_setting', message, { setting: key.slice(0, 64) });
}

function declaredSetting(key: unknown): SettingDeclaration {
  const setting = typeof key === 'string' ? settingOf(key) : undefined;
  if (!setting) throw unknownSetting(String(key));
  return setting;
}

// A setting HTTP may change: declared, not the operator's, named as written (not has_<key>).
function writableSetting(key: string): SettingDeclaration {
  const shown = /^has_(.+)$|^(.+)_last4$/.exec(key);
  const secret = shown ? (shown[1] ?? shown[2]) : undefined;
  if (secret && SECRET_SETTINGS.has(secret)) throw unknownSetting(key, `: ${key} is shown, not set; send ${secret} (null removes it)`);
  const setting = declaredSetting(key);
  if (setting.setBy === 'operator') {
    throw new DomainError('validation', 'read_only_setting', `${key} is set by an operator (npm run admin -- set-org-setting)`, { setting: key });
  }
  return setting;
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
