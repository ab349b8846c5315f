import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, type PlatformRuntime } from '@engage/platform';
import { startTestRuntime, testRootModule } from '@engage/platform/testing';
import { IdentityModule } from '../identity.module';
import { identityMigrations } from '../index';
import { MembershipService } from '../application/membership.service';
import { SmtpEmailSender } from '../infrastructure/email/smtp-email-sender';
import { OrganizationService } from '../application/organization.service';
import { latestMailTo } from '../infrastructure/email/dev-mailbox-email-sender';

const PUBLIC_URL = 'http://engage.test:8080';
let counter = 0;
const uniqueEmail = (name: string) => `${name}.${Date.now()}.${counter++}@example.com`;
type Role = 'OWNER' | 'ADMIN' | 'AGENT' | 'PROJECT_MANAGER' | 'TEAM_ADMIN';
interface Member {
  organizationId: string;
  userId: string;
  email: string;
  password: string;
}

describe('members and invitations over HTTP', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: identityMigrations, env: { PUBLIC_URL } });
    app = await createHttpApp(runtime, testRootModule(runtime, [IdentityModule]));
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  const orgs = () => app.get(OrganizationService);
  async function newOrg(): Promise<Member> {
    const email = uniqueEmail('owner');
    const { organization_id, owner_user_id } = await orgs().createOrganization({ name: 'Acme', ownerEmail: email, ownerPassword: 'correct horse battery' });
    return { organizationId: organization_id, userId: owner_user_id, email, password: 'correct horse battery' };
  }
  async function addMember(organizationId: string, role: Role): Promise<Member> {
    const email = uniqueEmail(role.toLowerCase());
    const { user_id } = await orgs().createUser({ organizationId, email, password: 'member password 1', role });
    return { organizationId, userId: user_id, email, password: 'member password 1' };
  }
  const login = (email: string, password: string) => app.inject({ method: 'POST', url: '/functions/v1/mobile-api/login', payload: { email, password } });
  const authOf = async (who: { email: string; password: string }) => {
    const res = await login(who.email, who.password);
    expect(res.statusCode).toBe(200);
    return { authorization: `Bearer ${res.json().access_token}` };
  };
  const invite = (auth: Record<string, string>, payload: unknown) =>
    app.inject({ method: 'POST', url: '/functions/v1/invitations', headers: auth, payload: payload as object });
  const accept = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/functions/v1/invitations/accept', payload });
  const patchRole = (auth: Record<string, string>, userId: string, role: string) =>
    app.inject({ method: 'PATCH', url: `/functions/v1/members/${userId}`, headers: auth, payload: { role } });
  const remove = (auth: Record<string, string>, userId: string) => app.inject({ method: 'DELETE', url: `/functions/v1/members/${userId}`, headers: auth });
  const listMembers = (auth: Record<string, string>) => app.inject({ method: 'GET', url: '/functions/v1/members', headers: auth });
  // The token exists only in the emailed link.
  async function invitationLink(email: string): Promise<URL> {
    const mail = await latestMailTo(runtime.config.DATA_DIR, email);
    const match = mail?.text.match(/https?:\/\/\S+\/functions\/v1\/invitations\/accept\?token=\S+/);
    if (!match) throw new Error(`no invitation link mailed to ${email}`);
    return new URL(match[0]);
  }
  const tokenOf = async (email: string) => (await invitationLink(email)).searchParams.get('token')!;
  const membershipCount = async (userId: string, organizationId: string) =>
    (await runtime.db.asSystem((tx) => tx.query('SELECT 1 FROM memberships WHERE user_id = $1 AND organization_id = $2', [userId, organizationId]))).length;

  it('should email a link that a new user accepts, then sign in with the invited role', async () => {
    const owner = await newOrg();
    const auth = await authOf(owner);
    const email = uniqueEmail('Invitee').toUpperCase();
    const created = await invite(auth, { email, role: 'AGENT' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      id: expect.any(String),
      email: email.toLowerCase(),
      role: 'AGENT',
      expires_at: expect.any(String),
      created_at: expect.any(String),
    });
    const days = (Date.parse(created.json().expires_at) - Date.parse(created.json().created_at)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);

    const link = await invitationLink(email);
    expect(link.origin).toBe(PUBLIC_URL);
    const token = link.searchParams.get('token')!;
    expect(created.body).not.toContain(token);
    const listed = await app.inject({ method: 'GET', url: '/functions/v1/invitations', headers: auth });
    expect(listed.json().invitations).toEqual([created.json()]);
    expect(listed.body).not.toContain(token);

    // The link itself is not a dead end: it tells the client what to POST.
    const landing = await app.inject({ method: 'GET', url: link.pathname + link.search });
    expect(landing.statusCode).toBe(200);
    expect(landing.json()).toMatchObject({ invitation: { email: email.toLowerCase(), role: 'AGENT', organization_name: 'Acme' }, accept: { method: 'POST' } });

    const accepted = await accept({ token, password: 'a brand new password', first_name: 'Ada', last_name: 'Lovelace' });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ user_id: expect.any(String), organization_id: owner.organizationId, role: 'AGENT' });

    const session = await login(email, 'a brand new password');
    expect(session.statusCode).toBe(200);
    expect(session.json().user).toMatchObject({ id: accepted.json().user_id, organization_id: owner.organizationId, first_name: 'Ada', last_name: 'Lovelace' });
    const members = await listMembers({ authorization: `Bearer ${session.json().access_token}` });
    expect(members.statusCode).toBe(200);
    expect(members.json().members).toEqual([
      expect.objectContaining({ id: owner.userId, role: 'OWNER' }),
      {
        id: accepted.json().user_id,
        email: email.toLowerCase(),
        first_name: 'Ada',
        last_name: 'Lovelace',
        role: 'AGENT',
        is_online: false,
        created_at: expect.any(String),
      },
    ]);
    const [user] = await runtime.db.asSystem((tx) =>
      tx.query<{ email_confirmed_at: Date | null }>('SELECT email_confirmed_at FROM users WHERE id = $1', [accepted.json().user_id]),
    );
    expect(user.email_confirmed_at).not.toBeNull();
    expect((await app.inject({ method: 'GET', url: '/functions/v1/invitations', headers: auth })).json().invitations).toEqual([]);
  });

  it('should accept a token once, even when two accepts race', async () => {
    const owner = await newOrg();
    const auth = await authOf(owner);
    const email = uniqueEmail('once');
    await invite(auth, { email, role: 'AGENT' });
    const token = await tokenOf(email);
    expect((await accept({ token, password: 'first password ok' })).statusCode).toBe(200);
    const again = await accept({ token, password: 'first password ok' });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('invitation_invalid');

    const raced = uniqueEmail('raced');
    await invite(auth, { email: raced, role: 'TEAM_ADMIN' });
    const racedToken = await tokenOf(raced);
    const results = await Promise.all([
      accept({ token: racedToken, password: 'racing password 1' }),
      accept({ token: racedToken, password: 'racing password 1' }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    const [{ count }] = await runtime.db.asSystem((tx) => tx.query<{ count: number }>('SELECT count(*)::int AS count FROM users WHERE email = $1', [raced]));
    expect(count).toBe(1);
  });

  it('should refuse an expired, revoked or replaced invitation with 400', async () => {
    const owner = await newOrg();
    const auth = await authOf(owner);
    const email = uniqueEmail('late');
    const created = (await invite(auth, { email, role: 'AGENT' })).json();
    const token = await tokenOf(email);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]));
    const expired = await accept({ token, password: 'some password 1' });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().code).toBe('invitation_expired');
    expect((await app.inject({ method: 'GET', url: `/functions/v1/invitations/accept?token=${token}` })).json().code).toBe('invitation_expired');

    // Re-inviting replaces the old invitation: its token stops working, the new one works.
    const second = (await invite(auth, { email, role: 'PROJECT_MANAGER' })).json();
    const newToken = await tokenOf(email);
    expect(newToken).not.toBe(token);
    expect((await accept({ token, password: 'some password 1' })).json().code).toBe('invitation_invalid');
    expect((await app.inject({ method: 'DELETE', url: `/functions/v1/invitations/${second.id}`, headers: auth })).statusCode).toBe(204);
    expect((await accept({ token: newToken, password: 'some password 1' })).json().code).toBe('invitation_invalid');
    expect((await app.inject({ method: 'DELETE', url: `/functions/v1/invitations/${second.id}`, headers: auth })).statusCode).toBe(404);
  });

  it('should let an existing user join only with their own password', async () => {
    const owner = await newOrg();
    const other = await newOrg();
    await invite(await authOf(owner), { email: other.email, role: 'ADMIN' });
    const token = await tokenOf(other.email);
    await runtime.db.asSystem((tx) => tx.query('UPDATE users SET email_confirmed_at = NULL WHERE id = $1', [other.userId]));
    const wrong = await accept({ token, password: 'not their password' });
    expect(wrong.statusCode).toBe(401);
    expect(await membershipCount(other.userId, owner.organizationId)).toBe(0);
    const right = await accept({ token, password: other.password });
    expect(right.json()).toEqual({ user_id: other.userId, organization_id: owner.organizationId, role: 'ADMIN' });
    expect(await membershipCount(other.userId, owner.organizationId)).toBe(1);
    const [user] = await runtime.db.asSystem((tx) =>
      tx.query<{ email_confirmed_at: Date | null }>('SELECT email_confirmed_at FROM users WHERE id = $1', [other.userId]),
    );
    expect(user.email_confirmed_at).not.toBeNull();
    const twice = await invite(await authOf(owner), { email: other.email, role: 'AGENT' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('already_member');
  });

  it('should let only OWNER and ADMIN manage members, and only an OWNER touch OWNERs', async () => {
    const owner = await newOrg();
    const admin = await addMember(owner.organizationId, 'ADMIN');
    const agent = await addMember(owner.organizationId, 'AGENT');
    const agentAuth = await authOf(agent);
    const byAgent = await invite(agentAuth, { email: uniqueEmail('x'), role: 'AGENT' });
    expect(byAgent.statusCode).toBe(403);
    expect(byAgent.json().code).toBe('insufficient_role');
    expect((await patchRole(agentAuth, admin.userId, 'AGENT')).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/functions/v1/invitations', headers: agentAuth })).statusCode).toBe(403);
    expect((await listMembers(agentAuth)).json().members).toHaveLength(3);

    const adminAuth = await authOf(admin);
    const ownerInvite = await invite(adminAuth, { email: uniqueEmail('boss'), role: 'OWNER' });
    expect(ownerInvite.statusCode).toBe(403);
    expect(ownerInvite.json().code).toBe('owner_required');
    expect((await patchRole(adminAuth, owner.userId, 'AGENT')).statusCode).toBe(403);
    expect((await remove(adminAuth, owner.userId)).statusCode).toBe(403);
    expect((await patchRole(adminAuth, agent.userId, 'OWNER')).statusCode).toBe(403);
    const promoted = await patchRole(adminAuth, agent.userId, 'PROJECT_MANAGER');
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ id: agent.userId, role: 'PROJECT_MANAGER' });
    expect((await invite(adminAuth, { email: uniqueEmail('ok'), role: 'ADMIN' })).statusCode).toBe(201);
  });

  it('should keep the last OWNER, and allow the change once a second OWNER exists', async () => {
    const owner = await newOrg();
    const auth = await authOf(owner);
    const demote = await patchRole(auth, owner.userId, 'ADMIN');
    expect(demote.statusCode).toBe(409);
    expect(demote.json().code).toBe('last_owner');
    expect((await remove(auth, owner.userId)).json().code).toBe('last_owner');

    const second = await addMember(owner.organizationId, 'ADMIN');
    expect((await patchRole(auth, second.userId, 'OWNER')).statusCode).toBe(200);
    // Both owners demote each other at once: the row locks let exactly one through.
    const secondAuth = await authOf(second);
    const raced = await Promise.all([patchRole(auth, second.userId, 'ADMIN'), patchRole(secondAuth, owner.userId, 'ADMIN')]);
    expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 403]);
    const owners = await runtime.db.asSystem((tx) =>
      tx.query(`SELECT 1 FROM memberships WHERE organization_id = $1 AND role = 'OWNER'`, [owner.organizationId]),
    );
    expect(owners).toHaveLength(1);

    const third = await addMember(owner.organizationId, 'AGENT');
    const remaining = raced[0].statusCode === 200 ? { who: owner, auth } : { who: second, auth: secondAuth };
    expect((await patchRole(remaining.auth, third.userId, 'OWNER')).statusCode).toBe(200);
    expect((await remove(remaining.auth, remaining.who.userId)).statusCode).toBe(204);
  });

  it('should refuse a removed member at once and revoke their refresh tokens', async () => {
    const owner = await newOrg();
    const agent = await addMember(owner.organizationId, 'AGENT');
    const session = (await login(agent.email, agent.password)).json();
    const agentAuth = { authorization: `Bearer ${session.access_token}` };
    expect((await listMembers(agentAuth)).statusCode).toBe(200);
    expect((await remove(await authOf(owner), agent.userId)).statusCode).toBe(204);
    expect((await listMembers(agentAuth)).statusCode).toBe(401);
    const [token] = await runtime.db.asSystem((tx) =>
      tx.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM refresh_tokens WHERE user_id = $1', [agent.userId]),
    );
    expect(token.revoked_at).not.toBeNull();
    const refresh = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=refresh_token', payload: { refresh_token: session.refresh_token } });
    expect(refresh.statusCode).toBe(400);
  });

  it('should not find members or invitations of another organization', async () => {
    const a = await newOrg();
    const b = await newOrg();
    const bAgent = await addMember(b.organizationId, 'AGENT');
    const bInvitation = (await invite(await authOf(b), { email: uniqueEmail('b'), role: 'AGENT' })).json();
    const aAuth = await authOf(a);
    expect((await patchRole(aAuth, bAgent.userId, 'ADMIN')).statusCode).toBe(404);
    expect((await remove(aAuth, bAgent.userId)).statusCode).toBe(404);
    expect((await remove(aAuth, b.userId)).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: `/functions/v1/invitations/${bInvitation.id}`, headers: aAuth })).statusCode).toBe(404);
    expect((await listMembers(aAuth)).json().members.map((m: { id: string }) => m.id)).toEqual([a.userId]);
    expect((await app.inject({ method: 'GET', url: '/functions/v1/invitations', headers: aAuth })).json().invitations).toEqual([]);
    expect(await membershipCount(bAgent.userId, b.organizationId)).toBe(1);
  });

  it('should revoke the invitation when its email cannot be sent', async () => {
    const owner = await newOrg();
    const ctx = { organizationId: owner.organizationId, userId: owner.userId, role: 'OWNER' as const, requestId: 'test' };
    // A real SMTP sender aimed at a port where nothing listens: the send genuinely fails.
    const failing = new MembershipService(runtime.db, new SmtpEmailSender('smtp://127.0.0.1:1', 'x@example.com', { timeoutMs: 500 }), runtime.config);
    await expect(failing.invite(ctx, { email: uniqueEmail('lost'), role: 'AGENT' })).rejects.toMatchObject({ kind: 'upstream', code: 'email_send_failed' });
    expect(await failing.listInvitations(ctx)).toEqual([]);
  });

  it('should answer bad input with 400, never 500', async () => {
    const owner = await newOrg();
    const auth = await authOf(owner);
    const cases = [
      await patchRole(auth, 'not-a-uuid', 'AGENT'),
      await remove(auth, '123'),
      await app.inject({ method: 'DELETE', url: '/functions/v1/invitations/nope', headers: auth }),
      await patchRole(auth, owner.userId, 'SUPERUSER'),
      await invite(auth, { email: uniqueEmail('x'), role: 'GOD' }),
      await invite(auth, { email: `${'a'.repeat(320)}@example.com`, role: 'AGENT' }),
      await invite(auth, { email: 'not an email', role: 'AGENT' }),
      await invite(auth, { email: uniqueEmail('x'), role: 'AGENT', extra: true }),
      await accept({ password: 'some password 1' }),
      await accept({ token: 'made-up-token', password: 'some password 1' }),
      await accept({ token: 'x'.repeat(201), password: 'some password 1' }),
      await app.inject({ method: 'GET', url: '/functions/v1/invitations/accept' }),
      await app.inject({ method: 'GET', url: '/functions/v1/invitations/accept?token=made-up' }),
    ];
    expect(cases.map((r) => r.statusCode)).toEqual(cases.map(() => 400));
    // A new user still meets the password policy.
    const email = uniqueEmail('weak');
    await invite(auth, { email, role: 'AGENT' });
    const weak = await accept({ token: await tokenOf(email), password: 'short' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().code).toBe('weak_password');
    expect((await app.inject({ method: 'GET', url: '/functions/v1/members' })).statusCode).toBe(401);
  });

  it('should refuse an invitation to an address the one email rule refuses, with 400', async () => {
    const auth = await authOf(await newOrg());
    const bad = ['not-an-email', 'two@@example.com', 'no spaces@example.com', 'nodot@example', `${'x'.repeat(320)}@example.com`, 'a\u0001b@example.com', 42];
    const answers = await Promise.all(bad.map((email) => invite(auth, { email, role: 'AGENT' })));
    expect(answers.map((r) => [r.statusCode, r.json().code])).toEqual(bad.map(() => [400, 'validation_failed']));
    expect((await invite(auth, { email: uniqueEmail('fine'), role: 'AGENT' })).statusCode).toBe(201);
  });
});
