import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Authenticator } from '@engage/identity';
import { loadConfig, startPlatform, type PlatformRuntime } from '@engage/platform';
import { createTestDatabase, dropTestDatabase, testAdminUrl } from '@engage/platform/testing';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { createApiApp } from '../src/create-api-app';

const root = resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

describe('admin CLI (npm run admin)', () => {
  jest.setTimeout(60_000);
  let databaseUrl: string;
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-admin-'));

  const admin = async (...args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, [join(root, 'dist', 'apps', 'api', 'admin.js'), ...args, '--json'], {
        env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      });
      return { code: 0, json: JSON.parse(stdout.trim().split('\n').pop()!) };
    } catch (error) {
      const failure = error as { code: number; stdout: string };
      return { code: failure.code, json: failure.stdout.trim() ? JSON.parse(failure.stdout.trim().split('\n').pop()!) : null };
    }
  };

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    databaseUrl = await createTestDatabase(testAdminUrl());
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await dropTestDatabase(testAdminUrl(), databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('should bootstrap an organization whose owner, users and keys work against the service', async () => {
    const org = await admin('create-org', '--name', 'Acme', '--owner-email', 'Owner@Acme.io', '--owner-password', 'owner password 1');
    expect(org.code).toBe(0);
    expect(Object.keys(org.json).sort()).toEqual(['anon_key', 'api_key', 'organization_id', 'owner_user_id']);
    const user = await admin('create-user', '--org', org.json.organization_id, '--email', 'agent@acme.io', '--password', 'agent password 1', '--role', 'AGENT');
    expect(user.code).toBe(0);
    const key = await admin('create-api-key', '--org', org.json.organization_id, '--name', 'CI');
    expect(key.json.api_key).toMatch(/^eng_/);
    const setting = await admin('set-org-setting', '--org', org.json.organization_id, '--key', 'appgain_api_key', '--value', 'provider-secret-123');
    expect(setting).toEqual({ code: 0, json: { ok: true } });

    runtime = await startPlatform(loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'test' }), {
      role: 'api',
      migrations: CONTEXT_MIGRATIONS,
    });
    app = await createApiApp(runtime);
    for (const [email, password] of [
      ['owner@acme.io', 'owner password 1'],
      ['agent@acme.io', 'agent password 1'],
    ]) {
      const login = await app.inject({ method: 'POST', url: '/functions/v1/mobile-api/login', payload: { email, password } });
      expect(login.statusCode).toBe(200);
      expect(login.json().user.organization_id).toBe(org.json.organization_id);
    }
    const authenticator = app.get(Authenticator);
    for (const apiKey of [org.json.api_key, key.json.api_key]) {
      const caller = await authenticator.authenticate({ apiKey, requestId: 't' }, ['api_key']);
      expect(caller.ctx.organizationId).toBe(org.json.organization_id);
    }
    // The provider key is sealed at rest.
    const [row] = await runtime.db.asSystem((tx) =>
      tx.query<{ settings: Record<string, { sealed: string }> }>('SELECT settings FROM organizations WHERE id = $1', [org.json.organization_id]),
    );
    expect(JSON.stringify(row.settings)).not.toContain('provider-secret-123');
    expect(row.settings.appgain_api_key.sealed).toMatch(/^v1:/);
  });

  it('should refuse bad input with a JSON error and a non-zero exit', async () => {
    expect(await admin('create-org', '--name', 'X', '--owner-email', 'x@x.io')).toEqual({
      code: 1,
      json: { error: '--owner-password is required', code: 'missing_flag' },
    });
    const weak = await admin('create-org', '--name', 'X', '--owner-email', 'x@x.io', '--owner-password', 'short');
    expect(weak).toMatchObject({ code: 1, json: { code: 'weak_password' } });
    const badRole = await admin(
      'create-user',
      '--org',
      '00000000-0000-0000-0000-000000000000',
      '--email',
      'y@y.io',
      '--password',
      'long enough 1',
      '--role',
      'KING',
    );
    expect(badRole.json.error).toContain('role must be one of');
    const unknownOrg = await admin(
      'create-user',
      '--org',
      '00000000-0000-0000-0000-000000000000',
      '--email',
      'y@y.io',
      '--password',
      'long enough 1',
      '--role',
      'AGENT',
    );
    expect(unknownOrg).toMatchObject({ code: 1, json: { code: 'organization.not_found' } });
    expect((await admin('no-such-command')).code).toBe(2);
  });

  it('should set an organization setting checked when set, refuse a bad one naming it, and clear it', async () => {
    const org = await admin('create-org', '--name', 'Hours', '--owner-email', 'owner@hours.io', '--owner-password', 'owner password 1');
    const id = org.json.organization_id;
    const bad = await admin('set-org-setting', '--org', id, '--key', 'business_hours', '--value', '{"mon":[["17:00","09:00"]]}');
    expect(bad).toEqual({ code: 1, json: { code: 'validation_failed', error: 'business_hours: mon[0] ends (09:00) before or when it starts (17:00)' } });
    const good = await admin('set-org-setting', '--org', id, '--key', 'business_hours', '--value', '{"mon":[["09:00","17:00"]]}');
    expect(good).toEqual({ code: 0, json: { ok: true } });
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const stored = async () => (await client.query('SELECT settings->>$2 AS v FROM organizations WHERE id = $1', [id, 'business_hours'])).rows[0].v;
    try {
      expect(await stored()).toBe('{"mon":[["09:00","17:00"]]}');
      expect(await admin('clear-org-setting', '--org', id, '--key', 'business_hours')).toEqual({ code: 0, json: { ok: true } });
      expect(await stored()).toBeNull();
      // The operations contract's name for the time zone, stored as time_zone.
      expect(await admin('set-org-setting', '--org', id, '--key', 'timezone', '--value', 'Africa/Cairo')).toEqual({ code: 0, json: { ok: true } });
      const zone = async () => (await client.query('SELECT settings->>$2 AS v FROM organizations WHERE id = $1', [id, 'time_zone'])).rows[0].v;
      expect(await zone()).toBe('Africa/Cairo');
      expect(await admin('set-org-setting', '--org', id, '--key', 'timezone', '--value', 'Mars/Olympus')).toMatchObject({ code: 1 });
      expect(await zone()).toBe('Africa/Cairo');
    } finally {
      await client.end();
    }
  });

  it('should list dead-lettered jobs and replay one', async () => {
    expect((await admin('jobs')).code).toBe(0);
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO jobs (name, payload, state, attempts, max_attempts, last_error, dead_at)
         VALUES ('test.broken', '{"n":1}', 'dead', 3, 3, 'receiver said no', now()) RETURNING id::text`,
      );
      const id = rows[0].id;
      const counts = await admin('jobs');
      expect(counts.json.counts).toContainEqual(expect.objectContaining({ name: 'test.broken', state: 'dead', count: 1 }));
      const failed = await admin('jobs', '--failed');
      expect(failed.code).toBe(0);
      expect(failed.json.jobs).toEqual([expect.objectContaining({ id, name: 'test.broken', attempts: 3, last_error: 'receiver said no', payload: { n: 1 } })]);
      expect(await admin('jobs-replay', '--id', id)).toEqual({ code: 0, json: { replayed: { id, name: 'test.broken' } } });
      const [job] = (await client.query(`SELECT state, attempts FROM jobs WHERE id = $1`, [id])).rows;
      expect(job).toEqual({ state: 'queued', attempts: 0 });
      expect((await admin('jobs', '--failed')).json.jobs).toEqual([]);
      expect(await admin('jobs-replay', '--id', id)).toEqual({ code: 1, json: { error: `no dead-lettered job with id ${id}`, code: 'job_not_found' } });
      expect(await admin('jobs-replay')).toEqual({ code: 1, json: { error: '--id is required', code: 'missing_flag' } });
      const badLimit = { code: 1, json: { error: '--limit must be a whole number from 1 to 1000', code: 'invalid_flag' } };
      expect(await admin('jobs', '--failed', '--limit', '0')).toEqual(badLimit);
      expect(await admin('jobs', '--failed', '--limit', 'many')).toEqual(badLimit);
    } finally {
      await client.end();
    }
  });

  it('should add a subscription plan and change the fields given, refusing bad flags', async () => {
    const created = await admin(
      'set-plan',
      '--id',
      'scale',
      '--name',
      'Scale',
      '--price',
      '499.50',
      '--currency',
      'eur',
      '--interval',
      'year',
      '--max-contacts',
      '100000',
      '--max-conversations',
      'unlimited',
      '--max-members',
      '50',
      '--product-lookup-id',
      'engage_scale',
    );
    const scale = { id: 'scale', price: '499.50', currency: 'EUR', limit_conversations_per_month: null, is_active: true };
    expect(created).toMatchObject({ code: 0, json: { created: true, plan: scale } });
    const changed = await admin('set-plan', '--id', 'growth', '--price', '89', '--max-members', 'unlimited', '--active', 'false');
    const growth = { id: 'growth', name: 'Growth', price: '89.00', limit_team_members: null, is_active: false };
    expect(changed).toMatchObject({ code: 0, json: { created: false, plan: growth } });
    const incomplete = await admin('set-plan', '--id', 'new-one', '--name', 'New');
    expect(incomplete).toMatchObject({ code: 1, json: { code: 'invalid_flag', error: expect.stringContaining('--price') } });
    expect(await admin('set-plan', '--id', 'growth', '--price', 'free')).toMatchObject({ code: 1, json: { code: 'invalid_flag' } });
    expect(await admin('set-plan', '--id', 'growth', '--max-contacts', '-5')).toMatchObject({ code: 1, json: { code: 'invalid_flag' } });
    expect(await admin('set-plan', '--id', 'Bad Id', '--name', 'X')).toMatchObject({ code: 1, json: { code: 'invalid_flag' } });
    expect(await admin('set-plan', '--id', 'growth', '--colour', 'blue')).toMatchObject({ code: 1, json: { error: '--colour is not a set-plan flag' } });
    expect(await admin('set-plan', '--id', 'growth')).toMatchObject({ code: 1, json: { code: 'invalid_flag' } });
  });
});
