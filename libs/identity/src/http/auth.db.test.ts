import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { OrganizationService } from '../application/organization.service';
import { Authenticator } from '../application/authenticator';
import { TokenService } from '../infrastructure/token-service';

let counter = 0;
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${counter++}@example.com`;

describe('identity over HTTP', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let baseUrl: string;
  let anonKey: string;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startTestApp([IdentityModule], { role: 'api', migrations: identityMigrations }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await app.getUrl();
    anonKey = await app.get(TokenService).issueAnonKey();
  });
  afterAll(() => close());

  const orgs = () => app.get(OrganizationService);
  async function newOrg(role: 'OWNER' | 'AGENT' = 'OWNER') {
    const email = uniqueEmail('owner');
    const { organization_id, owner_user_id } = await orgs().createOrganization({ name: 'Acme', ownerEmail: email, ownerPassword: 'correct horse battery' });
    if (role === 'OWNER') return { organizationId: organization_id, userId: owner_user_id, email, password: 'correct horse battery' };
    const agentEmail = uniqueEmail('agent');
    const { user_id } = await orgs().createUser({ organizationId: organization_id, email: agentEmail, password: 'agent password 1', role: 'AGENT' });
    return { organizationId: organization_id, userId: user_id, email: agentEmail, password: 'agent password 1' };
  }
  // Node 20 has no global WebSocket; supabase-js wants one for realtime (unused here).
  const supabase = () =>
    createClient(baseUrl, anonKey, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket as never } });
  const login = async (email: string, password: string) => {
    const res = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password } });
    return res;
  };
  // Past the 10 s grace window for concurrent refreshes, without waiting for it.
  const ageUsedTokens = (userId: string) =>
    runtime.db.asSystem((tx) =>
      tx.query(`UPDATE refresh_tokens SET used_at = now() - interval '1 minute' WHERE user_id = $1 AND used_at IS NOT NULL`, [userId]),
    );
  const setStatus = (userId: string, status: string) => runtime.db.asSystem((tx) => tx.query('UPDATE users SET status = $1 WHERE id = $2', [status, userId]));

  it('should sign in, read the user, refresh, detect refresh-token reuse and sign out through supabase-js unchanged', async () => {
    const owner = await newOrg();
    const client = supabase();
    const signIn = await client.auth.signInWithPassword({ email: owner.email.toUpperCase(), password: owner.password });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.token_type).toBe('bearer');
    expect(signIn.data.user?.email).toBe(owner.email);
    expect(signIn.data.user?.app_metadata).toMatchObject({ organization_id: owner.organizationId, role: 'OWNER' });

    const user = await client.auth.getUser(signIn.data.session!.access_token);
    expect(user.error).toBeNull();
    expect(user.data.user?.id).toBe(owner.userId);

    const refreshed = await client.auth.refreshSession({ refresh_token: signIn.data.session!.refresh_token });
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(signIn.data.session!.refresh_token);
    // Rotation: the first refresh token is spent; presenting it again after the grace window is reuse and revokes the family.
    await ageUsedTokens(owner.userId);
    const reuse = await supabase().auth.refreshSession({ refresh_token: signIn.data.session!.refresh_token });
    expect(reuse.error?.code).toBe('refresh_token_already_used');
    const afterReuse = await supabase().auth.refreshSession({ refresh_token: refreshed.data.session!.refresh_token });
    expect(afterReuse.error?.code).toBe('refresh_token_not_found');

    const second = await supabase().auth.signInWithPassword({ email: owner.email, password: owner.password });
    await client.auth.setSession({ access_token: second.data.session!.access_token, refresh_token: second.data.session!.refresh_token });
    const out = await client.auth.signOut();
    expect(out.error).toBeNull();
    const after = await client.auth.getUser(second.data.session!.access_token);
    expect(after.data.user).toBeNull();
    // auth-js turns GoTrue's session_not_found into its AuthSessionMissingError.
    expect(after.error?.name).toBe('AuthSessionMissingError');
    const raw = await app.inject({ method: 'GET', url: '/auth/v1/user', headers: { authorization: `Bearer ${second.data.session!.access_token}` } });
    expect(raw.json().error_code).toBe('session_not_found');
  });

  it('should refuse wrong credentials with GoTrue codes on /auth/v1 and 401 on the mobile login', async () => {
    const owner = await newOrg();
    const client = supabase();
    const wrong = await client.auth.signInWithPassword({ email: owner.email, password: 'not the password' });
    expect(wrong.error?.code).toBe('invalid_credentials');
    expect(wrong.error?.status).toBe(400);

    const legacy = await login(owner.email, 'not the password');
    expect(legacy.json()).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });

    const mobile = await app.inject({
      method: 'POST',
      url: '/functions/v1/mobile-api/login',
      payload: { email: 'nobody@example.com', password: 'whatever123' },
    });
    expect(mobile.statusCode).toBe(401);
    expect(mobile.json()).toMatchObject({ error: 'Invalid login credentials' });
  });

  it('should answer the mobile login with tokens and the user of §4.4', async () => {
    const owner = await newOrg();
    const res = await app.inject({ method: 'POST', url: '/functions/v1/mobile-api/login', payload: { email: owner.email, password: owner.password } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'user']);
    expect(body.expires_in).toBe(3600);
    expect(body.user).toEqual({
      id: owner.userId,
      first_name: expect.any(String),
      last_name: null,
      email: owner.email,
      organization_id: owner.organizationId,
      avatar_url: null,
    });
  });

  it('should rotate refresh tokens and revoke the whole family when a used one comes back', async () => {
    const owner = await newOrg();
    const first = (await login(owner.email, owner.password)).json();
    const refresh = (token: string) => app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=refresh_token', payload: { refresh_token: token } });
    const second = await refresh(first.refresh_token);
    expect(second.statusCode).toBe(200);
    await ageUsedTokens(owner.userId);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error_code).toBe('refresh_token_already_used');
    // The thief's and the owner's newest token are both dead now.
    const latest = await refresh(second.json().refresh_token);
    expect(latest.json().error_code).toBe('refresh_token_not_found');
    const unknown = await refresh('made-up-token');
    expect(unknown.json().error_code).toBe('refresh_token_not_found');
  });

  it('should refuse a deactivated or suspended account with 403 at login, at refresh and with a still-valid token', async () => {
    const owner = await newOrg();
    const session = (await login(owner.email, owner.password)).json();
    await setStatus(owner.userId, 'deactivated');
    const loginAgain = await app.inject({ method: 'POST', url: '/functions/v1/mobile-api/login', payload: { email: owner.email, password: owner.password } });
    expect(loginAgain.statusCode).toBe(403);
    expect(loginAgain.json().code).toBe('account_deactivated');
    const refresh = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=refresh_token', payload: { refresh_token: session.refresh_token } });
    expect(refresh.statusCode).toBe(403);
    await setStatus(owner.userId, 'suspended');
    const user = await app.inject({ method: 'GET', url: '/auth/v1/user', headers: { authorization: `Bearer ${session.access_token}` } });
    expect(user.statusCode).toBe(403);
    expect(user.json().error_code).toBe('account_suspended');
  });

  it('should limit login attempts per email and client address, ignoring X-Forwarded-For without TRUST_PROXY', async () => {
    const owner = await newOrg();
    const from = (address: string, password: string) =>
      app.inject({
        method: 'POST',
        url: '/auth/v1/token?grant_type=password',
        payload: { email: owner.email, password },
        headers: { 'x-forwarded-for': address },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await from(`203.0.113.${i}`, 'wrong password')).statusCode);
    expect(statuses.every((s) => s === 400)).toBe(true);
    // Every request came from the same socket address; the header changes nothing.
    const limited = await from('198.51.100.7', owner.password);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json().error_code).toBe('over_request_rate_limit');
    const payload = { email: owner.email, password: owner.password };
    const elsewhere = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload, remoteAddress: '198.51.100.7' });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('should refuse bad input with clear 4xx', async () => {
    const noGrant = await app.inject({ method: 'POST', url: '/auth/v1/token', payload: { email: 'a@b.co', password: 'x' } });
    expect(noGrant.statusCode).toBe(400);
    expect(noGrant.json().msg).toContain('grant_type must be password or refresh_token');
    const badEmail = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email: 42, password: 'x' } });
    expect(badEmail.statusCode).toBe(400);
    const mobileMissing = await app.inject({ method: 'POST', url: '/functions/v1/mobile-api/login', payload: { email: 'a@b.co' } });
    expect(mobileMissing.statusCode).toBe(400);
    expect(mobileMissing.json().error).toContain('password must be a string');
    const noToken = await app.inject({ method: 'GET', url: '/auth/v1/user' });
    expect(noToken.statusCode).toBe(401);
    const garbage = await app.inject({ method: 'GET', url: '/auth/v1/user', headers: { authorization: 'Bearer not.a.jwt' } });
    expect(garbage.statusCode).toBe(401);
    expect(garbage.json().error_code).toBe('bad_jwt');
    const anon = await app.inject({ method: 'GET', url: '/auth/v1/user', headers: { authorization: `Bearer ${anonKey}` } });
    expect(anon.statusCode).toBe(401);
  });

  describe('API keys', () => {
    it('should show the key once, list it by prefix, authenticate with it and stop after revocation', async () => {
      const owner = await newOrg();
      const token = (await login(owner.email, owner.password)).json().access_token;
      const auth = { authorization: `Bearer ${token}` };
      const created = await app.inject({ method: 'POST', url: '/functions/v1/api-keys', headers: auth, payload: { name: 'Zapier' } });
      expect(created.statusCode).toBe(201);
      const { api_key: key, id, prefix } = created.json();
      expect(key).toMatch(/^eng_/);
      expect(key.startsWith(prefix)).toBe(true);

      const listed = await app.inject({ method: 'GET', url: '/functions/v1/api-keys', headers: auth });
      expect(listed.json().api_keys).toEqual([{ id, name: 'Zapier', prefix, created_at: expect.any(String), last_used_at: null }]);
      expect(listed.body).not.toContain(key);

      const authenticator = app.get(Authenticator);
      const caller = await authenticator.authenticate({ apiKey: key, requestId: 'r' }, ['api_key']);
      expect(caller.ctx).toMatchObject({ organizationId: owner.organizationId, userId: null, role: 'API_KEY' });

      // A known key's organization is asked to admit the request before the key is looked up again.
      const admitted: string[] = [];
      const full = (organizationId: string) => {
        admitted.push(organizationId);
        return Promise.reject(new Error('organization full'));
      };
      await expect(authenticator.authenticate({ apiKey: key, requestId: 'r', admit: full }, ['api_key'])).rejects.toThrow('organization full');
      expect(admitted).toEqual([owner.organizationId]);

      expect((await app.inject({ method: 'DELETE', url: `/functions/v1/api-keys/${id}`, headers: auth })).statusCode).toBe(204);
      await expect(authenticator.authenticate({ apiKey: key, requestId: 'r' }, ['api_key'])).rejects.toMatchObject({ code: 'invalid_api_key' });
      // Refused by the lookup, the revoked key is forgotten: nothing is asked of the gate for it any more.
      await expect(authenticator.authenticate({ apiKey: key, requestId: 'r', admit: full }, ['api_key'])).rejects.toMatchObject({ code: 'invalid_api_key' });
      expect(admitted).toHaveLength(1);
    });

    it('should keep each organization to its own keys and refuse roles below ADMIN', async () => {
      const a = await newOrg();
      const b = await newOrg();
      const tokenOf = async (who: { email: string; password: string }) => ({
        authorization: `Bearer ${(await login(who.email, who.password)).json().access_token}`,
      });
      const bKey = (await app.inject({ method: 'POST', url: '/functions/v1/api-keys', headers: await tokenOf(b), payload: { name: 'B' } })).json();
      const aAuth = await tokenOf(a);
      expect((await app.inject({ method: 'GET', url: '/functions/v1/api-keys', headers: aAuth })).json().api_keys).toEqual([]);
      const steal = await app.inject({ method: 'DELETE', url: `/functions/v1/api-keys/${bKey.id}`, headers: aAuth });
      expect(steal.statusCode).toBe(404);
      const notUuid = await app.inject({ method: 'DELETE', url: '/functions/v1/api-keys/123', headers: aAuth });
      expect(notUuid.statusCode).toBe(400);
      const tooLong = await app.inject({ method: 'POST', url: '/functions/v1/api-keys', headers: aAuth, payload: { name: 'x'.repeat(101) } });
      expect(tooLong.statusCode).toBe(400);

      const agent = await newOrg('AGENT');
      const agentCreate = await app.inject({ method: 'POST', url: '/functions/v1/api-keys', headers: await tokenOf(agent), payload: { name: 'mine' } });
      expect(agentCreate.statusCode).toBe(403);
      expect(agentCreate.json().code).toBe('insufficient_role');
    });
  });
});
