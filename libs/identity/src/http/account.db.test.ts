import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { SIGNUP_MAILS_PER_HOUR } from '../application/account.service';
import { latestMailTo, listDevMailbox } from '../infrastructure/email/dev-mailbox-email-sender';
import { TokenService } from '../infrastructure/token-service';

const PUBLIC_URL = 'http://engage.test';
let counter = 0;
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${counter++}@example.com`;

describe('sign-up, email links, recovery and user updates', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let baseUrl: string;
  let anonKey: string;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startTestApp([IdentityModule], {
      role: 'api',
      migrations: identityMigrations,
      env: { PUBLIC_URL, AUTH_REDIRECT_URLS: 'https://app.example.com/auth' },
    }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await app.getUrl();
    anonKey = await app.get(TokenService).issueAnonKey();
  });
  afterAll(() => close());

  const supabase = () =>
    createClient(baseUrl, anonKey, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket as never } });

  // The link of the newest mail to `email`, as a path on our server.
  async function linkTo(email: string): Promise<string> {
    const mail = await latestMailTo(runtime.config.DATA_DIR, email);
    const match = /(http:\/\/engage\.test)(\/auth\/v1\/verify\?\S+)/.exec(mail?.text ?? '');
    if (!match) throw new Error(`no link in the mail to ${email}: ${mail?.text}`);
    return match[2];
  }

  it('should sign up, confirm through the emailed link, then sign in, update and sign out with supabase-js', async () => {
    const email = uniqueEmail('new');
    const client = supabase();
    const signUp = await client.auth.signUp({
      email,
      password: 'first password',
      options: { data: { first_name: 'Nour', organization_name: 'Nour Trading' } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user?.email).toBe(email);
    expect(signUp.data.user?.app_metadata.role).toBe('OWNER');

    const early = await client.auth.signInWithPassword({ email, password: 'first password' });
    expect(early.error?.code).toBe('email_not_confirmed');

    const verified = await app.inject({ method: 'GET', url: await linkTo(email) });
    expect(verified.statusCode).toBe(200);
    expect(verified.json().user.email_confirmed_at).toEqual(expect.any(String));
    const [org] = await runtime.db.asSystem((tx) =>
      tx.query<{ name: string }>('SELECT name FROM organizations WHERE id = $1', [verified.json().user.app_metadata.organization_id]),
    );
    expect(org.name).toBe('Nour Trading');

    const signIn = await client.auth.signInWithPassword({ email, password: 'first password' });
    expect(signIn.error).toBeNull();
    const updated = await client.auth.updateUser({ password: 'second password', data: { last_name: 'Haddad' } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata).toMatchObject({ first_name: 'Nour', last_name: 'Haddad' });
    expect((await client.auth.signOut()).error).toBeNull();
    expect((await supabase().auth.signInWithPassword({ email, password: 'first password' })).error?.code).toBe('invalid_credentials');
    expect((await supabase().auth.signInWithPassword({ email, password: 'second password' })).error).toBeNull();
  });

  it('should use each link once and refuse a used, expired or made-up token', async () => {
    const email = uniqueEmail('once');
    await supabase().auth.signUp({ email, password: 'first password' });
    const link = await linkTo(email);
    expect((await app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
    const again = await app.inject({ method: 'GET', url: link });
    expect(again.statusCode).toBe(403);
    expect(again.json().error_code).toBe('otp_expired');

    const other = uniqueEmail('late');
    await supabase().auth.signUp({ email: other, password: 'first password' });
    await runtime.db.asSystem((tx) =>
      tx.query(`UPDATE email_tokens SET expires_at = now() - interval '1 minute' WHERE user_id = (SELECT id FROM users WHERE email = $1)`, [other]),
    );
    expect((await app.inject({ method: 'GET', url: await linkTo(other) })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/auth/v1/verify?token=nope&type=signup' })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/auth/v1/verify?type=signup' })).statusCode).toBe(400);
  });

  it('should redirect with the session in the fragment only to allowed addresses', async () => {
    const email = uniqueEmail('redirect');
    await supabase().auth.signUp({ email, password: 'first password' });
    const link = await linkTo(email);
    const evil = await app.inject({ method: 'GET', url: `${link}&redirect_to=${encodeURIComponent('https://evil.example.net/steal')}` });
    expect(evil.statusCode).toBe(200); // not redirected; the tokens stay in the response
    const email2 = uniqueEmail('redirect2');
    await supabase().auth.signUp({ email: email2, password: 'first password' });
    const good = await app.inject({ method: 'GET', url: `${await linkTo(email2)}&redirect_to=${encodeURIComponent('https://app.example.com/auth/callback')}` });
    expect(good.statusCode).toBe(303);
    expect(good.headers.location).toMatch(/^https:\/\/app\.example\.com\/auth\/callback#access_token=.+&refresh_token=.+&type=signup/);
  });

  it('should send a browser that opens the link to the console with the token unused, and answer other clients the session', async () => {
    const email = uniqueEmail('browser');
    await supabase().auth.signUp({ email, password: 'first password' });
    const link = await linkTo(email);
    const opened = await app.inject({ method: 'GET', url: link, headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.vary).toMatch(/Accept/i);
    const target = new URL(String(opened.headers.location));
    expect(`${target.origin}${target.pathname}`).toBe(`${PUBLIC_URL}/app/verify`);
    const sent = new URL(link, PUBLIC_URL).searchParams;
    expect(target.searchParams.get('token')).toBe(sent.get('token'));
    expect(target.searchParams.get('type')).toBe('signup');
    // The console then opens the link as an API client does: the session, once.
    const verified = await app.inject({ method: 'GET', url: link, headers: { accept: 'application/json' } });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), user: { email } });
    expect((await app.inject({ method: 'GET', url: link })).statusCode).toBe(403);
    // With an allowed redirect_to a browser gets GoTrue's redirect, the session in the fragment.
    const other = uniqueEmail('browser2');
    await supabase().auth.signUp({ email: other, password: 'first password' });
    const redirected = await app.inject({
      method: 'GET',
      url: `${await linkTo(other)}&redirect_to=${encodeURIComponent('https://app.example.com/auth/callback')}`,
      headers: { accept: 'text/html' },
    });
    expect(redirected.statusCode).toBe(303);
    expect(redirected.headers.location).toMatch(/^https:\/\/app\.example\.com\/auth\/callback#access_token=/);
  });

  it('should change the email only after the link sent to the new address is opened', async () => {
    const email = uniqueEmail('old');
    await supabase().auth.signUp({ email, password: 'first password' });
    await app.inject({ method: 'GET', url: await linkTo(email) });
    const client = supabase();
    await client.auth.signInWithPassword({ email, password: 'first password' });
    const newEmail = uniqueEmail('fresh');
    const change = await client.auth.updateUser({ email: newEmail });
    expect(change.error).toBeNull();
    expect(change.data.user?.email).toBe(email);
    expect(change.data.user?.new_email).toBe(newEmail);
    expect((await supabase().auth.signInWithPassword({ email: newEmail, password: 'first password' })).error?.code).toBe('invalid_credentials');
    expect((await app.inject({ method: 'GET', url: await linkTo(newEmail) })).statusCode).toBe(200);
    expect((await supabase().auth.signInWithPassword({ email: newEmail, password: 'first password' })).error).toBeNull();
  });

  it('should send a recovery link that signs in, and answer the same for unknown addresses', async () => {
    const email = uniqueEmail('forgot');
    await supabase().auth.signUp({ email, password: 'first password' });
    await app.inject({ method: 'GET', url: await linkTo(email) });
    expect((await supabase().auth.resetPasswordForEmail(email)).error).toBeNull();
    const unknown = await app.inject({ method: 'POST', url: '/auth/v1/recover', payload: { email: uniqueEmail('ghost') } });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({});
    const session = await app.inject({ method: 'GET', url: (await linkTo(email)).replace(/type=\w+/, 'type=recovery') });
    expect(session.statusCode).toBe(200);
    const reset = await app.inject({
      method: 'PUT',
      url: '/auth/v1/user',
      headers: { authorization: `Bearer ${session.json().access_token}` },
      payload: { password: 'brand new password' },
    });
    expect(reset.statusCode).toBe(200);
    expect((await supabase().auth.signInWithPassword({ email, password: 'brand new password' })).error).toBeNull();
  });

  it('should refuse bad sign-up input with GoTrue codes', async () => {
    const weak = await app.inject({ method: 'POST', url: '/auth/v1/signup', payload: { email: uniqueEmail('weak'), password: 'short' } });
    expect(weak.statusCode).toBe(422);
    expect(weak.json().error_code).toBe('weak_password');
    const badEmail = await app.inject({ method: 'POST', url: '/auth/v1/signup', payload: { email: 'nope', password: 'first password' } });
    expect(badEmail.statusCode).toBe(400);
    const badData = await app.inject({ method: 'POST', url: '/auth/v1/signup', payload: { email: uniqueEmail('x'), password: 'first password', data: 'x' } });
    expect(badData.statusCode).toBe(400);
    const longName = await app.inject({
      method: 'POST',
      url: '/auth/v1/signup',
      payload: { email: uniqueEmail('y'), password: 'first password', data: { first_name: 'x'.repeat(101) } },
    });
    expect(longName.statusCode).toBe(400);
  });

  describe('sign-up with an address that has an account (GoTrue with confirmations on)', () => {
    // Their own client address, so these sign-ups do not count against the others' limit.
    let n = 0;
    const signUpFrom = (payload: object) => app.inject({ method: 'POST', url: '/auth/v1/signup', payload, remoteAddress: `10.9.8.${++n}` });
    const mailsTo = async (email: string) => (await listDevMailbox(runtime.config.DATA_DIR)).filter((mail) => mail.to === email);
    // Every key, with the type of its value, nested: what a client could tell two answers apart by.
    const shape = (value: unknown): unknown =>
      value === null
        ? 'null'
        : Array.isArray(value)
          ? value.map(shape)
          : typeof value === 'object'
            ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shape(v)]))
            : typeof value;
    const count = async (sql: string, values: unknown[]) => Number((await runtime.db.asSystem((tx) => tx.query<{ n: string }>(sql, values)))[0].n);

    it('answers as for a new address (200, a made-up unconfirmed user, no session), creates and changes nothing, and emails the owner', async () => {
      const email = uniqueEmail('taken');
      const first = await signUpFrom({ email, password: 'first password', data: { first_name: 'Owner' } });
      expect(first.statusCode).toBe(200);
      await app.inject({ method: 'GET', url: await linkTo(email) });
      const [before] = await runtime.db.asSystem((tx) => tx.query<Record<string, unknown>>('SELECT * FROM users WHERE email = $1', [email]));
      const organizations = await count('SELECT count(*) AS n FROM organizations', []);

      const again = await signUpFrom({
        email: email.toUpperCase(),
        password: 'intruder password',
        data: { first_name: 'Mallory', organization_name: 'Takeover' },
      });
      const fresh = await signUpFrom({
        email: uniqueEmail('fresh'),
        password: 'first password',
        data: { first_name: 'Mallory', organization_name: 'Takeover' },
      });
      expect(again.statusCode).toBe(fresh.statusCode);
      expect(shape(again.json())).toEqual(shape(fresh.json()));
      expect(Object.keys(again.headers).sort()).toEqual(Object.keys(fresh.headers).sort());
      const user = again.json();
      expect(user).toMatchObject({
        email,
        email_confirmed_at: null,
        confirmed_at: null,
        last_sign_in_at: null,
        identities: [],
        app_metadata: { provider: 'email', role: 'OWNER' },
        user_metadata: { first_name: 'Mallory', last_name: null },
      });
      expect(user).not.toHaveProperty('access_token');
      // Ids that exist nowhere: neither the account's nor a new organization's.
      expect(user.id).not.toBe(first.json().id);
      expect(await count('SELECT count(*) AS n FROM users WHERE id = $1', [user.id])).toBe(0);
      expect(await count('SELECT count(*) AS n FROM organizations WHERE id = $1', [user.app_metadata.organization_id])).toBe(0);
      expect(await count('SELECT count(*) AS n FROM organizations', [])).toBe(organizations + 1); // the fresh address's
      const [after] = await runtime.db.asSystem((tx) => tx.query<Record<string, unknown>>('SELECT * FROM users WHERE email = $1', [email]));
      expect(after).toEqual(before);
      expect((await supabase().auth.signInWithPassword({ email, password: 'intruder password' })).error?.code).toBe('invalid_credentials');
      expect((await supabase().auth.signInWithPassword({ email, password: 'first password' })).error).toBeNull();

      const [notice] = await mailsTo(email);
      expect(notice.subject).toBe('Someone tried to sign up with your email');
      expect(notice.text).toContain(`tried to sign up with ${email}, which already has an account`);
      expect(notice.text).toContain('your account and its password were not changed');
      expect(notice.text).toContain('Forgot password');
      expect(notice.text).toContain(PUBLIC_URL);
      expect(notice.text).not.toMatch(/token=/);
    });

    it('answers supabase-js as for a new address', async () => {
      const email = uniqueEmail('taken-js');
      await signUpFrom({ email, password: 'first password' });
      const again = await supabase().auth.signUp({ email, password: 'other password' });
      expect(again.error).toBeNull();
      expect(again.data.session).toBeNull();
      expect(again.data.user).toMatchObject({ email, email_confirmed_at: null, app_metadata: { role: 'OWNER' } });
    });

    it('tells the owner of an unconfirmed account that a password reset confirms it, and keeps the pending link working', async () => {
      const email = uniqueEmail('pending');
      await signUpFrom({ email, password: 'first password' });
      const link = await linkTo(email);
      expect((await signUpFrom({ email, password: 'second password' })).statusCode).toBe(200);
      const [notice] = await mailsTo(email);
      expect(notice.subject).toBe('Someone tried to sign up with your email');
      expect(notice.text).toContain('has not been confirmed yet: resetting its password also confirms the address');
      expect((await app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
    });

    it('emails an address at most SIGNUP_MAILS_PER_HOUR times an hour about sign-ups, answering the same every time', async () => {
      const email = uniqueEmail('flood');
      await signUpFrom({ email, password: 'first password' });
      const answers = [];
      for (let i = 0; i < SIGNUP_MAILS_PER_HOUR + 2; i++) answers.push(await signUpFrom({ email, password: 'first password' }));
      expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
      // The confirmation of the first sign-up, then notices up to the limit.
      const subjects = (await mailsTo(email)).map((mail) => mail.subject).reverse();
      expect(subjects).toEqual(['Confirm your email', ...Array(SIGNUP_MAILS_PER_HOUR - 1).fill('Someone tried to sign up with your email')]);
    });

    it('still refuses a weak password first, and keeps the sign-up limit per client address', async () => {
      const email = uniqueEmail('taken-bad');
      await signUpFrom({ email, password: 'first password' });
      const weak = await signUpFrom({ email, password: 'short' });
      expect(weak.statusCode).toBe(422);
      expect(weak.json().error_code).toBe('weak_password');
      const limited = [];
      for (let i = 0; i < 31; i++)
        limited.push(
          (await app.inject({ method: 'POST', url: '/auth/v1/signup', payload: { email, password: 'first password' }, remoteAddress: '10.9.9.9' })).statusCode,
        );
      expect(limited.slice(0, 30)).toEqual(limited.slice(0, 30).map(() => 200));
      expect(limited[30]).toBe(429);
    });
  });

  it('should refuse NUL characters with 400 naming the field instead of failing in the database', async () => {
    const post = (url: string, payload: object, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload, headers });
    const signUp = await post('/auth/v1/signup', { email: `nul\u0000${uniqueEmail('x')}`, password: 'first password' });
    expect(signUp.statusCode).toBe(400);
    expect(signUp.json().msg).toContain('email');
    const login = await post('/auth/v1/token?grant_type=password', { email: 'a\u0000@example.com', password: 'first password' });
    expect(login.statusCode).toBe(400);
    expect(login.json().msg).toContain('email');
    const mobile = await post('/functions/v1/mobile-api/login', { email: 'a@exa\u0000mple.com', password: 'first password' });
    expect(mobile.statusCode).toBe(400);
    expect(mobile.json().error).toContain('email');
    const recover = await post('/auth/v1/recover', { email: 'a\u0000@example.com' });
    expect(recover.statusCode).toBe(400);
    const name = await post('/auth/v1/signup', { email: uniqueEmail('nulname'), password: 'first password', data: { first_name: 'Mo\u0000na' } });
    expect(name.statusCode).toBe(400);
    expect(name.json().msg).toContain('first_name');

    const email = uniqueEmail('nulupdate');
    await supabase().auth.signUp({ email, password: 'first password' });
    const session = (await app.inject({ method: 'GET', url: await linkTo(email) })).json();
    const auth = { authorization: `Bearer ${session.access_token}` };
    const update = await app.inject({ method: 'PUT', url: '/auth/v1/user', headers: auth, payload: { data: { last_name: 'x\u0000' } } });
    expect(update.statusCode).toBe(400);
    expect(update.json().msg).toContain('last_name');
    const profile = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${session.user.id}`, headers: auth, payload: { first_name: 'x\u0000' } });
    expect(profile.statusCode).toBe(400);
    expect(profile.json().message).toContain('first_name');
    const key = await app.inject({ method: 'POST', url: '/functions/v1/api-keys', headers: auth, payload: { name: 'key\u0000' } });
    expect(key.statusCode).toBe(400);
    expect(key.json().error).toContain('name');
  });
});
