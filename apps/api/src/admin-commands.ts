import type { INestApplicationContext } from '@nestjs/common';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { setPlan } from '@engage/billing';
import { ApiKeyService, listDevMailbox, OrganizationService, TokenService } from '@engage/identity';
import { type Config, Database, deadJobs, jobCounts, replayDeadJob } from '@engage/platform';

export type Flags = Record<string, string>;

const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: 'admin-cli' });

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (value === undefined || value === '') throw new DomainError('validation', 'missing_flag', `--${name} is required`);
  return value;
}

function limitOf(flags: Flags): number {
  const limit = Number(flags.limit ?? '50');
  if (Number.isInteger(limit) && limit >= 1 && limit <= 1000) return limit;
  throw new DomainError('validation', 'invalid_flag', '--limit must be a whole number from 1 to 1000');
  return limit;
}

// The commands of OPERATIONS.md ("Bootstrap from the command line"); each returns its JSON answer.
export const ADMIN_COMMANDS: Record<string, (app: INestApplicationContext, flags: Flags, config: Config) => Promise<unknown>> = {
  'create-org': async (app, flags) => {
    const created = await app
      .get(OrganizationService)
      .createOrganization({ name: required(flags, 'name'), ownerEmail: required(flags, 'owner-email'), ownerPassword: required(flags, 'owner-password') });
    const key = await app.get(ApiKeyService).create(systemCtx(created.organization_id), 'Default');
    return { ...created, api_key: key.api_key, anon_key: await app.get(TokenService).issueAnonKey() };
  },
  'create-user': async (app, flags) =>
    app.get(OrganizationService).createUser({
      organizationId: required(flags, 'org'),
      email: required(flags, 'email'),
      password: required(flags, 'password'),
      role: required(flags, 'role'),
    }),
  'create-api-key': async (app, flags) => {
    const key = await app.get(ApiKeyService).create(systemCtx(required(flags, 'org')), required(flags, 'name'));
    return { api_key: key.api_key, id: key.id, prefix: key.prefix };
  },
  'set-org-setting': async (app, flags) => {
    await app.get(OrganizationService).setSetting(required(flags, 'org'), settingKey(required(flags, 'key')), required(flags, 'value'));
    return { ok: true };
  },
  // Removes a setting: an optional one (e.g. business_hours) is then off.
  'clear-org-setting': async (app, flags) => {
    await app.get(OrganizationService).clearSetting(required(flags, 'org'), settingKey(required(flags, 'key')));
    return { ok: true };
  },
  // Adds a subscription plan or changes the given fields of one (docs/billing.md).
  'set-plan': async (app, flags) => setPlan(app.get(Database), flags),
  mailbox: async (_app, _flags, config) => ({ messages: await listDevMailbox(config.DATA_DIR) }),
  // The job runner: counts per kind and state, or with --failed the dead-lettered jobs (newest first).
  jobs: async (app, flags) => {
    const db = app.get(Database);
    if (flags.failed !== 'true') return { counts: await jobCounts(db) };
    return { jobs: await deadJobs(db, { limit: limitOf(flags), name: flags.name }) };
  },
  'jobs-replay': async (app, flags) => {
    const id = required(flags, 'id');
    const replayed = await replayDeadJob(app.get(Database), id);
    if (!replayed) throw new DomainError('not_found', 'job_not_found', `no dead-lettered job with id ${id}`);
    return { replayed };
  },
};

// `--name Acme --owner-email a@b.c --json` -> { name: 'Acme', 'owner-email': 'a@b.c', json: 'true' }
export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new DomainError('validation', 'unexpected_argument', `unexpected argument "${arg}"`);
    const name = arg.slice(2);
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = 'true';
    else {
      flags[name] = next;
      i++;
    }
  }
  return flags;
}

// The operations contract names the organization's time zone `timezone`; it is stored (and served
// over HTTP) as `time_zone`. Both names work here.
const SETTING_ALIASES: Record<string, string> = { timezone: 'time_zone' };
const settingKey = (key: string) => SETTING_ALIASES[key] ?? key;
