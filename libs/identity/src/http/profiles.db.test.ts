import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startTestApp } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { OrganizationService } from '../application/organization.service';

let counter = 0;

describe('GET and PATCH /rest/v1/profiles', () => {
  let app: NestFastifyApplication;

  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, close } = await startTestApp([IdentityModule], { role: 'api', migrations: identityMigrations }));
  });
  afterAll(() => close());

  async function member() {
    const email = `profile.${Date.now()}.${counter++}@example.com`;
    const org = await app.get(OrganizationService).createOrganization({ name: 'P', ownerEmail: email, ownerPassword: 'profile password', ownerFirstName: 'Rana' });
    const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password: 'profile password' } });
    return { id: org.owner_user_id, email, headers: { authorization: `Bearer ${login.json().access_token}` } };
  }

  it("should return one's own profile with the fields of §2", async () => {
    const me = await member();
    const res = await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: me.id, first_name: 'Rana', last_name: null, email: me.email, role: 'OWNER', avatar_url: null, onboarding_completed: false, email_confirmed: true },
    ]);
    const narrow = await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${me.id}&select=id,onboarding_completed,email_confirmed`, headers: me.headers });
    expect(narrow.json()).toEqual([{ id: me.id, onboarding_completed: false, email_confirmed: true }]);
  });

  it('should update the writable fields, keep the email read-only and show nothing of others', async () => {
    const me = await member();
    const other = await member();
    const patch = await app.inject({
      method: 'PATCH',
      url: `/rest/v1/profiles?id=eq.${me.id}`,
      headers: { ...me.headers, prefer: 'return=representation' },
      payload: { first_name: 'Rania', last_name: 'Saleh', onboarding_completed: true },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json()[0]).toMatchObject({ first_name: 'Rania', last_name: 'Saleh', onboarding_completed: true });
    const minimal = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers, payload: { last_name: null } });
    expect(minimal.statusCode).toBe(204);
    const email = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers, payload: { email: 'new@x.io' } });
    expect(email.statusCode).toBe(403);
    expect(email.json()).toMatchObject({ code: '42501' });

    expect((await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${other.id}`, headers: me.headers })).json()).toEqual([]);
    const theirs = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${other.id}`, headers: { ...me.headers, prefer: 'return=representation' }, payload: { first_name: 'Hacked' } });
    expect(theirs.json()).toEqual([]);
    const still = await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${other.id}`, headers: other.headers });
    expect(still.json()[0].first_name).toBe('Rana');
  });

  it('should answer bad queries and bodies with PostgREST-style 4xx', async () => {
    const me = await member();
    const get = (query: string) => app.inject({ method: 'GET', url: `/rest/v1/profiles${query}`, headers: me.headers });
    expect((await get('')).statusCode).toBe(400);
    expect((await get('?id=eq.not-a-uuid')).json()).toMatchObject({ code: '22P02' });
    expect((await get(`?id=eq.${me.id}&select=id,password_hash`)).json()).toMatchObject({ code: '42703' });
    expect((await get(`?id=eq.${me.id}&email=eq.x`)).statusCode).toBe(400);
    const badType = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers, payload: { onboarding_completed: 'yes' } });
    expect(badType.statusCode).toBe(400);
    const tooLong = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers, payload: { first_name: 'x'.repeat(101) } });
    expect(tooLong.statusCode).toBe(400);
    const array = await app.inject({ method: 'PATCH', url: `/rest/v1/profiles?id=eq.${me.id}`, headers: me.headers, payload: [{ first_name: 'x' }] });
    expect(array.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: `/rest/v1/profiles?id=eq.${me.id}` })).statusCode).toBe(401);
  });
});
