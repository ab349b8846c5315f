import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createClient } from '@supabase/supabase-js';
import { OrganizationService } from '@engage/identity';
import { createTestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startComposedApp } from './composed-app';

let counter = 0;

// /rest/v1/profiles is served by the data API like every table: members read each other's
// profiles, each user writes only their own row and only the columns §2 allows.
describe('/rest/v1/profiles through the data API', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  let base: string;

  beforeAll(async () => {
    ({ app, runtime, close } = await startComposedApp());
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => close());

  async function signIn(email: string, password = 'profile password') {
    const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password } });
    return { authorization: `Bearer ${login.json().access_token}`, token: login.json().access_token as string };
  }

  async function organization() {
    const email = `profile.${Date.now()}.${counter++}@example.com`;
    const org = await app
      .get(OrganizationService)
      .createOrganization({ name: 'P', ownerEmail: email, ownerPassword: 'profile password', ownerFirstName: 'Rana' });
    return { id: org.owner_user_id, organizationId: org.organization_id, email, headers: await signIn(email) };
  }

  const patch = (headers: Record<string, string>, query: string, payload: unknown, prefer = 'return=representation') =>
    app.inject({ method: 'PATCH', url: `/rest/v1/profiles?${query}`, headers: { authorization: headers.authorization, prefer }, payload: payload as object });

  it("should read one's own profile with the fields of §2, as supabase-js .single() expects", async () => {
    const me = await organization();
    const client = createClient(base, me.headers.token, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { Authorization: me.headers.authorization } },
    });
    const { data, error } = await client.from('profiles').select().eq('id', me.id).single();
    expect(error).toBeNull();
    expect(data).toMatchObject({
      id: me.id,
      organization_id: me.organizationId,
      first_name: 'Rana',
      last_name: null,
      email: me.email,
      role: 'OWNER',
      onboarding_completed: false,
      email_confirmed: true,
    });
    const narrow = await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${me.id}&select=id,onboarding_completed`, headers: me.headers });
    expect(narrow.json()).toEqual([{ id: me.id, onboarding_completed: false }]);
  });

  it("should list the organization's members for pickers, never another organization's", async () => {
    const me = await organization();
    const stranger = await organization();
    const res = await app.inject({ method: 'GET', url: '/rest/v1/profiles?select=id,email&order=email', headers: me.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: me.id, email: me.email }]);
    expect((await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${stranger.id}`, headers: me.headers })).json()).toEqual([]);
  });

  it('should update only the own row and the writable columns, refusing the rest with 4xx', async () => {
    const me = await organization();
    const other = await organization();
    // onboarding_completed turns true only after the required onboarding steps (onboarding.e2e.test.ts).
    await runtime.db.asSystem((tx) =>
      tx.query(`INSERT INTO subscriptions (organization_id, plan_id, storefront_store_id, status) VALUES ($1, 'free', $2, 'trialing')`, [
        me.organizationId,
        `store-${me.organizationId}`,
      ]),
    );
    const updated = await patch(me.headers, `id=eq.${me.id}`, {
      first_name: 'Rania',
      last_name: 'Saleh',
      onboarding_completed: true,
      avatar_url: 'https://cdn.example/a.png',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()[0]).toMatchObject({ first_name: 'Rania', last_name: 'Saleh', onboarding_completed: true, avatar_url: 'https://cdn.example/a.png' });
    expect((await patch(me.headers, `id=eq.${me.id}`, { last_name: null }, 'return=minimal')).statusCode).toBe(204);
    const cleared = await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${me.id}&select=first_name,last_name`, headers: me.headers });
    expect(cleared.json()).toEqual([{ first_name: 'Rania', last_name: null }]);

    for (const payload of [{ email: 'new@x.io' }, { role: 'AGENT' }, { first_name: 'A', email: 'x@y.z' }]) {
      const res = await patch(me.headers, `id=eq.${me.id}`, payload);
      expect({ payload, status: res.statusCode, code: res.json().code }).toEqual({ payload, status: 403, code: '42501' });
    }
    // Another organization's row is out of sight: nothing matches, nothing changes.
    const theirs = await patch(me.headers, `id=eq.${other.id}`, { first_name: 'Hacked' });
    expect(theirs.json()).toEqual([]);
    const bad: [unknown, number][] = [
      [{ onboarding_completed: 'yes' }, 400],
      [{ first_name: 'x'.repeat(101) }, 400],
      [{ first_name: '' }, 400],
      [{ avatar_url: 42 }, 400],
      [{ no_such_column: 1 }, 400],
    ];
    for (const [payload, status] of bad)
      expect({ payload, status: (await patch(me.headers, `id=eq.${me.id}`, payload)).statusCode }).toEqual({ payload, status });
    expect((await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${other.id}&select=first_name`, headers: other.headers })).json()).toEqual([
      { first_name: 'Rana' },
    ]);
  });

  it("should refuse changing a fellow member's profile, and creating or deleting profiles", async () => {
    const me = await organization();
    const invitee = `member.${Date.now()}.${counter++}@example.com`;
    await app
      .get(OrganizationService)
      .createUser({ organizationId: me.organizationId, email: invitee, password: 'member password', role: 'AGENT', firstName: 'Omar' });
    const member = await signIn(invitee, 'member password');
    const colleague = (
      await app.inject({ method: 'GET', url: `/rest/v1/profiles?email=eq.${encodeURIComponent(invitee)}&select=id,first_name`, headers: me.headers })
    ).json();
    expect(colleague).toEqual([{ id: expect.any(String), first_name: 'Omar' }]);
    const theirs = await patch(me.headers, `id=eq.${colleague[0].id}`, { first_name: 'Renamed' });
    expect(theirs.statusCode).toBe(403);
    // A filter that matches several rows, the own one among them, changes none of them.
    expect((await patch(member, `organization_id=eq.${me.organizationId}`, { first_name: 'Everyone' })).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/rest/v1/profiles?select=first_name&order=first_name', headers: me.headers })).json()).toEqual([
      { first_name: 'Omar' },
      { first_name: 'Rana' },
    ]);
    expect((await app.inject({ method: 'POST', url: '/rest/v1/profiles', headers: me.headers, payload: { first_name: 'New' } })).statusCode).toBe(403);
    expect((await app.inject({ method: 'DELETE', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers })).statusCode).toBe(403);
    // An API key acts for no user: it reads the organization's profiles but changes none.
    const tenant = await createTestTenant(app);
    expect((await app.inject({ method: 'GET', url: '/functions/v1/rest-api-proxy/profiles?select=id', headers: tenant.key })).json()).toEqual([
      { id: tenant.ctx.userId },
    ]);
    const byKey = await app.inject({
      method: 'PATCH',
      url: `/functions/v1/rest-api-proxy/profiles?id=eq.${tenant.ctx.userId}`,
      headers: tenant.key,
      payload: { first_name: 'Key' },
    });
    expect(byKey.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${me.id}` })).statusCode).toBe(401);
  });

  it("should keep a fellow member's row out of a tenant transaction's updates (row-level security, not only the writer)", async () => {
    const me = await organization();
    const { user_id: colleague } = await app
      .get(OrganizationService)
      .createUser({ organizationId: me.organizationId, email: `rls@${counter++}.example.com`, password: 'member password', role: 'AGENT' });
    const ctx = { organizationId: me.organizationId, userId: me.id, role: 'OWNER' as const, requestId: 'test' };
    const changed = await runtime.db.inTenant(ctx, (tx) =>
      tx.execute(`UPDATE users SET first_name = 'Forced' WHERE id = ANY($1::uuid[])`, [[me.id, colleague]]),
    );
    expect(changed).toBe(1);
    const names = await runtime.db.asSystem((tx) =>
      tx.query<{ id: string; first_name: string | null }>('SELECT id, first_name FROM users WHERE id = ANY($1::uuid[])', [[me.id, colleague]]),
    );
    expect(Object.fromEntries(names.map((row) => [row.id, row.first_name]))).toEqual({ [me.id]: 'Forced', [colleague]: 'rls' });
  });
});
