import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityManifest, identityMigrations } from '../index';
import { OrganizationService } from '../application/organization.service';
import { backoffMs, BACKOFF_MAX_MS } from '../application/rate-limiter';
import { RateLimitPurge } from '../application/rate-limit-purge.job';

let counter = 0;
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${counter++}@example.com`;
const PASSWORD = 'correct horse battery';

// Behind a proxy named in TRUST_PROXY (the tests connect from 127.0.0.1), X-Forwarded-For is the client.
describe('login limits per client address', () => {
  let app: NestFastifyApplication;
  let baseUrl: string;
  let close: () => Promise<void>;
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    ({ app, close, runtime } = await startTestApp([IdentityModule], {
      role: 'api',
      migrations: identityMigrations,
      env: { TRUST_PROXY: '127.0.0.1', LOGIN_LIMIT_PER_EMAIL: '5', LOGIN_LIMIT_PER_IP: '12' },
    }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await app.getUrl();
  });
  afterAll(() => close());

  const newOwner = async () => {
    const email = uniqueEmail('owner');
    await app.get(OrganizationService).createOrganization({ name: 'Acme', ownerEmail: email, ownerPassword: PASSWORD });
    return email;
  };
  const login = (email: string, password: string, from: string, path = '/auth/v1/token?grant_type=password') =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ email, password }),
    });

  it('should refuse the guessing address but let the right password in from another one', async () => {
    const email = await newOwner();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await login(email, 'wrong password', '203.0.113.5')).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    const blocked = await login(email, PASSWORD, '203.0.113.5');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { error_code: string }).error_code).toBe('over_request_rate_limit');
    // The owner elsewhere: the email has seen more attempts than the limit, so this one is slowed, not refused.
    expect((await login(email, PASSWORD, '198.51.100.7')).status).toBe(200);
    expect((await login(email, PASSWORD, '198.51.100.7', '/functions/v1/mobile-api/login')).status).toBe(200);
  });

  it('should keep the user reachable while guesses come from many addresses', async () => {
    const email = await newOwner();
    // Eight guesses for the email from two addresses: three over the email-wide limit, slowed (not timed here).
    for (const from of ['192.0.2.1', '192.0.2.2']) {
      for (let i = 0; i < 4; i++) expect((await login(email, 'wrong password', from)).status).toBe(400);
    }
    expect((await login(email, PASSWORD, '192.0.2.200')).status).toBe(200);
  });

  it('should limit one address across emails', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) statuses.push((await login(uniqueEmail('nobody'), 'wrong password', '198.51.100.99')).status);
    expect(statuses.slice(0, 12).every((status) => status === 400)).toBe(true);
    expect(statuses[12]).toBe(429);
    // Another client behind the same proxy is not affected.
    expect((await login(uniqueEmail('nobody'), 'wrong password', '198.51.100.100')).status).toBe(400);
  });

  it('should take the address the trusted proxy saw, not one the client prepended', async () => {
    const email = await newOwner();
    // The proxy appends the real client; a client-sent value stays to its left.
    for (let i = 0; i < 5; i++) await login(email, 'wrong password', `10.9.9.${i}, 203.0.113.77`);
    expect((await login(email, PASSWORD, '10.9.9.200, 203.0.113.77')).status).toBe(429);
  });

  it('should back off from 100 ms, doubling, to at most 2 s', () => {
    const delays = [5, 6, 7, 8, 9, 10, 11, 50, 5000].map((n) => backoffMs(n, 5));
    expect(delays).toEqual([0, 100, 200, 400, 800, 1600, BACKOFF_MAX_MS, BACKOFF_MAX_MS, BACKOFF_MAX_MS]);
  });

  it('should purge, on its hourly job, the counters of windows that ended over a day ago and keep the current ones', async () => {
    const email = await newOwner();
    expect((await login(email, 'wrong password', '198.51.100.77')).status).toBe(400);
    const system = <R>(text: string) => runtime.db.asSystem((tx) => tx.query<R>(text));
    await system(`INSERT INTO rate_limit_counters (key, window_start, count)
      SELECT 'login:ip:old-' || n, now() - interval '25 hours' - n * interval '1 minute', 3 FROM generate_series(1, 50) n`);
    const current = `SELECT count(*)::int AS n FROM rate_limit_counters WHERE key LIKE '%198.51.100.77%'`;
    const before = (await system<{ n: number }>(current))[0].n;
    expect(before).toBeGreaterThan(0);

    await app.get(RateLimitPurge).handle();
    expect(await system(`SELECT key FROM rate_limit_counters WHERE key LIKE 'login:ip:old-%'`)).toEqual([]);
    expect((await system<{ n: number }>(current))[0].n).toBe(before);
    const schedules = identityManifest.jobs.schedules.map((schedule) => [schedule.job.name, 'cron' in schedule ? schedule.cron : schedule.everyMs]);
    expect(schedules).toContainEqual(['identity.rate-limit-purge', '41 * * * *']);
  });
});
