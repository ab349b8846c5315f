import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, dropTestDatabase, testAdminUrl } from '@engage/platform/testing';

// The built service at LOG_LEVEL=debug, driven down failing paths (NUL characters, wrong passwords,
// reused tokens, a write PostgreSQL refuses): everything it writes to stdout and stderr is searched
// for every secret the test created or was given.
const root = resolve(__dirname, '..', '..', '..');
const main = join(root, 'dist', 'apps', 'api', 'main.js');

describe('logs carry no secrets', () => {
  jest.setTimeout(120_000);
  let child: ChildProcess;
  let output = '';
  let url: string;
  let databaseUrl: string;
  let dataDir: string;
  const billingSecret = `billing-secret-${Date.now()}-never-logged`;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    databaseUrl = await createTestDatabase(testAdminUrl());
    dataDir = mkdtempSync(join(tmpdir(), 'engage-logs-'));
    child = spawn(process.execPath, [main, '--with-worker'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'debug',
        PUBLIC_URL: 'http://engage.test',
        BILLING_WEBHOOK_SECRET: billingSecret,
      },
    });
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening after 60 s:\n${output}`)), 60_000);
      const poll = setInterval(() => {
        const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
        if (!match) return;
        clearInterval(poll);
        clearTimeout(timer);
        resolveUrl(match[1]);
      }, 50);
    });
  });
  afterAll(async () => {
    child?.kill('SIGTERM');
    await new Promise((done) => (child?.exitCode !== null ? done(undefined) : child.once('exit', done)));
    await dropTestDatabase(testAdminUrl(), databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init = { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) };
    const res = await fetch(`${url}${path}`, init);
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  it('should keep passwords, hashes, tokens, keys, emails and message texts out of the log on failing paths', async () => {
    const stamp = Date.now();
    const email = `log.secret.${stamp}@example.com`;
    const password = `pw-${stamp}-never-logged`;
    const messageText = `private message text ${stamp}`;
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as { owner_email: string; owner_password: string; api_key: string };

    // NUL characters where PostgreSQL cannot store them: 400 naming the field, not a failed query.
    const nulSignUp = await call('POST', '/auth/v1/signup', { email: `nul.${stamp}\u0000@example.com`, password });
    expect([nulSignUp.status, nulSignUp.json.msg]).toEqual([400, expect.stringContaining('email')]);
    const nulLogin = await call('POST', '/auth/v1/token?grant_type=password', { email: `nul.${stamp}\u0000@example.com`, password });
    expect(nulLogin.status).toBe(400);

    expect((await call('POST', '/auth/v1/signup', { email, password, data: { first_name: 'Lea' } })).status).toBe(200);
    const mailDir = join(dataDir, 'mail');
    const mails = readdirSync(mailDir).map((name) => JSON.parse(readFileSync(join(mailDir, name), 'utf8')) as { to: string; text: string });
    const mail = mails.find((m) => m.to === email)!;
    const link = /http:\/\/engage\.test(\/auth\/v1\/verify\?token=([^&\s]+)\S*)/.exec(mail.text)!;
    const session = (await call('GET', link[1])).json as { access_token: string; refresh_token: string };
    expect(session.access_token).toEqual(expect.any(String));
    expect((await call('GET', link[1])).status).toBe(403);

    expect((await call('POST', '/auth/v1/token?grant_type=password', { email, password: `${password}-wrong` })).status).toBe(400);
    const auth = { authorization: `Bearer ${session.access_token}` };
    const key = (await call('POST', '/functions/v1/api-keys', { name: 'logged?' }, auth)).json.api_key as string;
    expect(key).toMatch(/^eng_/);
    const refreshed = await call('POST', '/auth/v1/token?grant_type=refresh_token', { refresh_token: session.refresh_token });
    expect(refreshed.status).toBe(200);

    // Writes PostgreSQL refuses, carrying an email and a message text, with a session and with the API key.
    for (const headers of [auth, { 'x-api-key': key }, { 'x-api-key': demo.api_key }]) {
      const path = 'x-api-key' in headers ? '/functions/v1/rest-api-proxy/contacts' : '/rest/v1/contacts';
      const contact = { first_name: `Nu\u0000l ${messageText}`, description: messageText, emails: [email] };
      const write = await call('POST', path, contact, { ...headers, prefer: 'return=representation' });
      expect(write.status).toBeGreaterThanOrEqual(400);
    }
    // Searches PostgreSQL may fail on, the values in the query's parameters: refused as input, or
    // failed in the database and logged as an unhandled error.
    const search = await call('POST', '/functions/v1/search-companies', { searchTerm: `${email}\u0000${messageText}` }, auth);
    expect(search.status).not.toBe(200);
    const fts = await call('GET', `/rest/v1/contacts?first_name=fts(nosuchconfig).${encodeURIComponent(`${email} ${messageText}`)}`, undefined, auth);
    expect(fts.status).not.toBe(200);
    const failedInDatabase = [search, fts].filter((res) => res.status === 500).length;
    const profile = await call('PATCH', `/rest/v1/profiles?id=eq.${(refreshed.json.user as { id: string }).id}`, { first_name: `x\u0000${messageText}` }, auth);
    expect(profile.status).toBe(400);
    expect((await call('GET', `/auth/v1/verify?token=${encodeURIComponent(link[2])}&type=recovery`)).status).toBe(403);

    // Billing events: a wrong signature, then a signed body naming an unknown organization and plan.
    const billingBody = JSON.stringify({ organization_id: randomUUID(), plan_id: 'no-such-plan', storefront_store_id: `store-${stamp}`, status: 'active' });
    const billingSignature = createHmac('sha256', billingSecret).update(billingBody).digest('hex');
    const billing = (signature: string) =>
      fetch(`${url}/functions/v1/storefront-billing-webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-billing-signature': signature },
        body: billingBody,
      });
    expect((await billing('0'.repeat(64))).status).toBe(401);
    expect((await billing(billingSignature)).status).toBe(404);

    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const [{ password_hash: hash }] = (await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', [email])).rows;
    await db.end();
    expect(hash).toMatch(/^\$argon2id\$/);

    await new Promise((done) => setTimeout(done, 300)); // lines written after the last answers
    expect(output).toMatch(/request completed/);
    // A 500 here was a failed query: its line must be there, with the SQLSTATE but not the values.
    if (failedInDatabase > 0) expect(output).toMatch(/"msg":"unhandled error"/);
    if (failedInDatabase > 0) expect(output).toMatch(/"type":"DatabaseFailure".*"code":"\w{5}"/);
    const secrets = {
      password,
      hash,
      hashTail: hash.split('$').pop()!,
      email,
      nulEmail: `nul.${stamp}`,
      confirmToken: link[2],
      accessToken: session.access_token,
      refreshToken: session.refresh_token,
      newRefreshToken: refreshed.json.refresh_token as string,
      apiKey: key,
      messageText,
      demoPassword: demo.owner_password,
      demoApiKey: demo.api_key,
      demoEmail: demo.owner_email,
      billingSecret,
      billingSignature,
    };
    const leaked = Object.entries(secrets).filter(([, secret]) => output.includes(secret));
    expect(leaked.map(([name]) => name)).toEqual([]);
  });
});
