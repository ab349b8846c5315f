import { Writable } from 'node:stream';
import { startTestRuntime } from '../testing/test-runtime';
import type { PlatformRuntime } from './platform-runtime';
import { createLogger } from './log';

// Real failed queries, logged as the error filter logs them: the captured lines must carry the
// SQLSTATE and where it failed, and none of the values the queries were given.
describe('logging failed queries', () => {
  let runtime: PlatformRuntime;
  let lines: string;
  const capture = new Writable({
    write(chunk, _encoding, done) {
      lines += String(chunk);
      done();
    },
  });
  const log = createLogger('info', capture);

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api' });
    await runtime.db.systemQuery('CREATE TABLE log_probe (email text PRIMARY KEY, secret text, n integer)');
  });
  afterAll(() => runtime.close());
  beforeEach(() => {
    lines = '';
  });

  const SECRETS = {
    hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo',
    email: 'victim.person@example.org',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
    apiKey: 'eng_0123456789abcdefABCDEF0123456789',
    text: 'my very private message to a customer',
  };
  const failure = async (sql: string, params: unknown[]) => {
    const error = await runtime.db.systemQuery(sql, params).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    log.error({ err: error, url: '/auth/v1/signup' }, 'unhandled error');
    return JSON.parse(lines.trim().split('\n').pop()!) as { err: Record<string, unknown> };
  };
  const expectNoSecrets = () => {
    for (const secret of Object.values(SECRETS)) expect(lines).not.toContain(secret);
    expect(lines).not.toContain('victim');
  };

  it('should log a NUL in a parameter without any of the parameters', async () => {
    const everything = `${SECRETS.hash} ${SECRETS.jwt} ${SECRETS.apiKey} ${SECRETS.text}`;
    const entry = await failure('INSERT INTO log_probe (email, secret) VALUES ($1, $2)', [`${SECRETS.email}\u0000`, everything]);
    expect(entry.err).toMatchObject({ code: '22021', query: 'INSERT INTO log_probe (email, secret) VALUES ($1, $2)' });
    expectNoSecrets();
  });

  it("should drop PostgreSQL's detail, which repeats the row's values", async () => {
    await runtime.db.systemQuery('INSERT INTO log_probe (email, secret) VALUES ($1, $2)', [SECRETS.email, SECRETS.text]);
    const entry = await failure('INSERT INTO log_probe (email, secret) VALUES ($1, $2)', [SECRETS.email, SECRETS.hash]);
    expect(entry.err).toMatchObject({ code: '23505', constraint: 'log_probe_pkey' });
    expectNoSecrets();
  });

  it('should mask values quoted in data-exception messages and addresses in any message', async () => {
    const entry = await failure('SELECT $1::integer', [SECRETS.text]);
    expect(entry.err).toMatchObject({ code: '22P02', message: 'invalid input syntax for type integer: "[value]"' });
    log.error({ err: new Error(`mail to ${SECRETS.email} failed with ${SECRETS.jwt}`, { cause: new Error(SECRETS.hash) }) }, 'send failed');
    log.warn({ err: new Error('timeout') }, `webhook disabled notice to ${SECRETS.email} failed`);
    log.info({ email: SECRETS.email, body: { password: SECRETS.text }, headers: { authorization: `Bearer ${SECRETS.jwt}` } }, 'request');
    expectNoSecrets();
  });
});
