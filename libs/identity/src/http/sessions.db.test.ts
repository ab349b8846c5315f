import { createClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { OrganizationService } from '../application/organization.service';
import { latestMailTo } from '../infrastructure/email/dev-mailbox-email-sender';
import { TokenService } from '../infrastructure/token-service';

let counter = 0;
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${counter++}@example.com`;
const PASSWORD = 'correct horse battery';

describe('sessions: password changes, recovery, concurrent refresh and token claims', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let baseUrl: string;
  let anonKey: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const env = { PUBLIC_URL: 'http://engage.test' };
    ({ runtime, app, close } = await startTestApp([IdentityModule], { role: 'api', migrations: identityMigrations, env }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await app.getUrl();
    anonKey = await app.get(TokenService).issueAnonKey();
  });
  afterAll(() => close());

  const supabase = () =>
    createClient(baseUrl, anonKey, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket as never } });
  async function newOwner() {
    const email = uniqueEmail('owner');
    const { owner_user_id } = await app.get(OrganizationService).createOrganization({ name: 'Acme', ownerEmail: email, ownerPassword: PASSWORD });
    return { email, userId: owner_user_id };
  }
  const signIn = async (email: string, password = PASSWORD) => {
    const res = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password } });
    expect(res.statusCode).toBe(200);
    return res.json() as { access_token: string; refresh_token: string };
  };
  const getUser = (accessToken: string) => app.inject({ method: 'GET', url: '/auth/v1/user', headers: { authorization: `Bearer ${accessToken}` } });
  const refresh = (token: string) => app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=refresh_token', payload: { refresh_token: token } });

  it('should end every other session, access tokens included, when the password changes, and keep the one that changed it', async () => {
    const owner = await newOwner();
    const intruder = await signIn(owner.email);
    const otherDevice = await signIn(owner.email);
    const client = supabase();
    expect((await client.auth.signInWithPassword({ email: owner.email, password: PASSWORD })).error).toBeNull();
    const changed = await client.auth.updateUser({ password: 'a brand new password' });
    expect(changed.error).toBeNull();

    for (const stale of [intruder, otherDevice]) {
      const user = await getUser(stale.access_token);
      expect(user.statusCode).toBe(401);
      expect(user.json().error_code).toBe('session_not_found');
      expect((await refresh(stale.refresh_token)).json().error_code).toBe('refresh_token_not_found');
    }
    // The session that made the change goes on, and can refresh.
    expect((await client.auth.getUser()).error).toBeNull();
    expect((await client.auth.refreshSession()).error).toBeNull();
    expect((await client.auth.getUser()).data.user?.id).toBe(owner.userId);
    const notice = await latestMailTo(runtime.config.DATA_DIR, owner.email);
    expect(notice?.subject).toBe('Your password was changed');
    expect(notice?.text).not.toContain('a brand new password');
  });

  it('should require an emailed nonce to change the password from a session signed in more than 24 hours ago', async () => {
    const owner = await newOwner();
    const client = supabase();
    expect((await client.auth.signInWithPassword({ email: owner.email, password: PASSWORD })).error).toBeNull();
    const other = await signIn(owner.email);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE refresh_tokens SET created_at = created_at - interval '25 hours' WHERE user_id = $1`, [owner.userId]));

    const refused = await client.auth.updateUser({ password: 'changed without proof' });
    expect(refused.error?.code).toBe('reauthentication_needed');
    expect(refused.error?.status).toBe(400);
    expect((await getUser(other.access_token)).statusCode).toBe(200);

    expect((await client.auth.reauthenticate()).error).toBeNull();
    const mail = await latestMailTo(runtime.config.DATA_DIR, owner.email);
    const nonce = /^(\d{6})$/m.exec(mail?.text ?? '')![1];
    const wrong = await client.auth.updateUser({ password: 'changed with a guess', nonce: nonce === '123456' ? '654321' : '123456' });
    expect(wrong.error?.code).toBe('reauthentication_not_valid');
    expect(wrong.error?.status).toBe(422);
    const session = (await client.auth.getSession()).data.session!;
    for (const bad of ['12ab56', ['123456']]) {
      const headers = { authorization: `Bearer ${session.access_token}` };
      const res = await app.inject({ method: 'PUT', url: '/auth/v1/user', headers, payload: { password: 'changed with junk', nonce: bad } });
      expect(res.statusCode).toBe(422);
    }
    expect((await signIn(owner.email, PASSWORD)).access_token).toEqual(expect.any(String));

    const changed = await client.auth.updateUser({ password: 'changed with the nonce', nonce });
    expect(changed.error).toBeNull();
    expect((await getUser(other.access_token)).json().error_code).toBe('session_not_found');
    expect((await latestMailTo(runtime.config.DATA_DIR, owner.email))?.subject).toBe('Your password was changed');
    await runtime.db.asSystem((tx) => tx.query(`UPDATE refresh_tokens SET created_at = created_at - interval '25 hours' WHERE user_id = $1`, [owner.userId]));
    const spent = await client.auth.updateUser({ password: 'the nonce again', nonce });
    expect(spent.error?.code).toBe('reauthentication_not_valid');
    // Six digits are few: a sixth try within 15 minutes is refused.
    expect((await client.auth.updateUser({ password: 'one guess too many', nonce })).error?.code).toBe('over_request_rate_limit');
    expect((await signIn(owner.email, 'changed with the nonce')).access_token).toEqual(expect.any(String));
  });

  it('should refuse a reauthentication request without a session', async () => {
    const res = await app.inject({ method: 'GET', url: '/auth/v1/reauthenticate' });
    expect(res.statusCode).toBe(401);
  });

  it('should leave other sessions alone when only the name changes', async () => {
    const owner = await newOwner();
    const other = await signIn(owner.email);
    const mine = await signIn(owner.email);
    const headers = { authorization: `Bearer ${mine.access_token}` };
    const res = await app.inject({ method: 'PUT', url: '/auth/v1/user', headers, payload: { data: { first_name: 'Mona' } } });
    expect(res.statusCode).toBe(200);
    expect((await getUser(other.access_token)).statusCode).toBe(200);
  });

  it('should end every earlier session when a recovery link is opened', async () => {
    const owner = await newOwner();
    const intruder = await signIn(owner.email);
    expect((await supabase().auth.resetPasswordForEmail(owner.email)).error).toBeNull();
    const mail = await latestMailTo(runtime.config.DATA_DIR, owner.email);
    const link = /http:\/\/engage\.test(\/auth\/v1\/verify\?\S+)/.exec(mail?.text ?? '')![1];
    const recovered = await app.inject({ method: 'GET', url: link });
    expect(recovered.statusCode).toBe(200);
    expect((await getUser(intruder.access_token)).json().error_code).toBe('session_not_found');
    expect((await refresh(intruder.refresh_token)).json().error_code).toBe('refresh_token_not_found');
    const reset = await app.inject({
      method: 'PUT',
      url: '/auth/v1/user',
      headers: { authorization: `Bearer ${recovered.json().access_token}` },
      payload: { password: 'recovered password' },
    });
    expect(reset.statusCode).toBe(200);
    expect((await getUser(recovered.json().access_token)).statusCode).toBe(200);
  });

  it('should refuse a correctly signed token without exp', async () => {
    const owner = await newOwner();
    const session = await signIn(owner.email);
    const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url').toString());
    delete claims.exp;
    const forever = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(runtime.secrets.jwtSecret));
    const res = await getUser(forever);
    expect(res.statusCode).toBe(401);
    expect(res.json().error_code).toBe('bad_jwt');
    expect((await getUser(session.access_token)).statusCode).toBe(200);
  });

  it('should give concurrent refreshes of one token the same new session and keep the family alive', async () => {
    const owner = await newOwner();
    const first = await signIn(owner.email);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${baseUrl}/auth/v1/token?grant_type=refresh_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', apikey: anonKey },
          body: JSON.stringify({ refresh_token: first.refresh_token }),
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const sessions = (await Promise.all(answers.map((res) => res.json()))) as { access_token: string; refresh_token: string; user: { id: string } }[];
    expect(new Set(sessions.map((s) => s.refresh_token)).size).toBe(1);
    expect(sessions[0].refresh_token).not.toBe(first.refresh_token);
    for (const s of sessions) {
      expect(s.user.id).toBe(owner.userId);
      expect((await getUser(s.access_token)).statusCode).toBe(200);
    }
    const next = await refresh(sessions[0].refresh_token);
    expect(next.statusCode).toBe(200);
    // A tab that is still behind gets the family's newest token, not a revocation.
    const late = await refresh(first.refresh_token);
    expect(late.statusCode).toBe(200);
    expect(late.json().refresh_token).toBe(next.json().refresh_token);
  });

  it('should revoke the family when a used token comes back after the grace window', async () => {
    const owner = await newOwner();
    const first = await signIn(owner.email);
    const second = await refresh(first.refresh_token);
    expect(second.statusCode).toBe(200);
    const aged = `UPDATE refresh_tokens SET used_at = now() - interval '11 seconds' WHERE user_id = $1 AND used_at IS NOT NULL`;
    await runtime.db.asSystem((tx) => tx.query(aged, [owner.userId]));
    const replay = await refresh(first.refresh_token);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error_code).toBe('refresh_token_already_used');
    expect((await refresh(second.json().refresh_token)).json().error_code).toBe('refresh_token_not_found');
    expect((await getUser(second.json().access_token)).json().error_code).toBe('session_not_found');
  });
});
