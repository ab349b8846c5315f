import { randomUUID } from 'node:crypto';
import { DomainError, Forbidden, Unauthorized } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { normalizeEmail } from '../domain/password-policy';
import {
  INSERT_REFRESH_TOKEN,
  MARK_REFRESH_USED,
  MARK_SIGNED_IN,
  REFRESH_TOKEN_FOR_UPDATE,
  REVOKE_FAMILY,
  REVOKE_USER_SESSIONS,
  USER_BY_EMAIL,
  USER_BY_ID,
  USER_IN_ORGANIZATION,
  type UserRow,
} from '../infrastructure/identity.sql';
import { verifyPassword } from '../infrastructure/password-hasher';
import { ACCESS_TOKEN_SECONDS, newOpaqueToken, REFRESH_TOKEN_DAYS, sha256, type TokenService } from '../infrastructure/token-service';
import type { RateLimiter } from './rate-limiter';
import { toUserView, type UserView } from './user-view';

export interface Session {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: UserView;
}

const invalidCredentials = () => Unauthorized('invalid_credentials', 'Invalid login credentials');

export function assertActive(status: string): void {
  if (status === 'deactivated') throw Forbidden('account_deactivated', 'This account is deactivated');
  if (status === 'suspended') throw Forbidden('account_suspended', 'This account is suspended');
}

export class SessionService {
  constructor(
    private readonly db: Database,
    private readonly tokens: TokenService,
    private readonly limiter: RateLimiter,
    private readonly limits: { perEmail: number; perIp: number } = { perEmail: 10, perIp: 50 },
  ) {}

  async signInWithPassword(email: unknown, password: unknown, ip: string): Promise<Session> {
    if (typeof password !== 'string' || password.length === 0 || password.length > 1024) throw invalidCredentials();
    const normalized = normalizeEmail(email);
    await this.limiter.hit([
      { key: `login:email:${normalized}`, max: this.limits.perEmail, windowSeconds: 300 },
      { key: `login:ip:${ip}`, max: this.limits.perIp, windowSeconds: 300 },
    ]);
    const [user] = await this.db.systemQuery<UserRow>(USER_BY_EMAIL, [normalized]);
    if (!(await verifyPassword(user?.password_hash, password)) || !user) throw invalidCredentials();
    assertActive(user.status);
    if (!user.email_confirmed_at) throw new DomainError('validation', 'email_not_confirmed', 'Email not confirmed');
    return this.db.asSystem(async (tx) => {
      await tx.query(MARK_SIGNED_IN, [user.id]);
      return this.openSession(tx, { ...user, last_sign_in_at: new Date() }, randomUUID());
    });
  }

  // After a verified email link: a new session, as a sign-in would give.
  async openSessionFor(userId: string): Promise<Session> {
    return this.db.asSystem(async (tx) => {
      const [user] = await tx.query<UserRow>(USER_BY_ID, [userId]);
      if (!user) throw Unauthorized('user_not_found', 'User not found');
      assertActive(user.status);
      await tx.query(MARK_SIGNED_IN, [user.id]);
      return this.openSession(tx, { ...user, last_sign_in_at: new Date() }, randomUUID());
    });
  }

  // Rotation: each refresh token works once; presenting a used one revokes its whole family.
  async refresh(refreshToken: unknown): Promise<Session> {
    if (typeof refreshToken !== 'string' || refreshToken.length === 0 || refreshToken.length > 200) {
      throw new DomainError('validation', 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    }
    type Outcome = { kind: 'session'; session: Session } | { kind: 'inactive'; status: string } | { kind: 'error'; code: 'refresh_token_not_found' | 'refresh_token_already_used' };
    const outcome = await this.db.asSystem(async (tx): Promise<Outcome> => {
      const [token] = await tx.query<{ id: string; family_id: string; user_id: string; organization_id: string; expires_at: Date; used_at: Date | null; revoked_at: Date | null }>(
        REFRESH_TOKEN_FOR_UPDATE,
        [sha256(refreshToken)],
      );
      if (!token || token.revoked_at || token.expires_at.getTime() < Date.now()) return { kind: 'error', code: 'refresh_token_not_found' };
      if (token.used_at) {
        // Committed on purpose: the family stays revoked although this call fails.
        await tx.query(REVOKE_FAMILY, [token.family_id]);
        return { kind: 'error', code: 'refresh_token_already_used' };
      }
      const [user] = await tx.query<UserRow>(USER_IN_ORGANIZATION, [token.user_id, token.organization_id]);
      if (!user) return { kind: 'error', code: 'refresh_token_not_found' };
      if (user.status !== 'active') return { kind: 'inactive', status: user.status };
      await tx.query(MARK_REFRESH_USED, [token.id]);
      return { kind: 'session', session: await this.openSession(tx, user, token.family_id) };
    });
    if (outcome.kind === 'session') return outcome.session;
    if (outcome.kind === 'inactive') assertActive(outcome.status);
    if (outcome.kind === 'error' && outcome.code === 'refresh_token_already_used') {
      throw new DomainError('validation', 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
    }
    throw new DomainError('validation', 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
  }

  // scope global (GoTrue's default): every session of the user; local: this one only.
  async signOut(userId: string, sessionId: string, scope: 'global' | 'local' | 'others'): Promise<void> {
    await this.db.asSystem(async (tx) => {
      if (scope === 'local') await tx.query(REVOKE_FAMILY, [sessionId]);
      else if (scope === 'global') await tx.query(REVOKE_USER_SESSIONS, [userId]);
      else await tx.query(`UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND family_id <> $2 AND revoked_at IS NULL`, [userId, sessionId]);
    });
  }

  async currentUser(userId: string, organizationId: string): Promise<UserView> {
    const [user] = await this.db.systemQuery<UserRow>(USER_IN_ORGANIZATION, [userId, organizationId]);
    if (!user) throw Unauthorized('bad_jwt', 'User from sub claim in JWT does not exist');
    return toUserView(user);
  }

  private async openSession(tx: Tx, user: UserRow, familyId: string): Promise<Session> {
    const refreshToken = newOpaqueToken();
    await tx.query(INSERT_REFRESH_TOKEN, [familyId, user.id, user.organization_id, sha256(refreshToken), REFRESH_TOKEN_DAYS]);
    const access = await this.tokens.issueAccessToken({ sub: user.id, organization_id: user.organization_id, role: user.role, session_id: familyId, email: user.email });
    return {
      access_token: access.token,
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      expires_at: access.expiresAt,
      refresh_token: refreshToken,
      user: toUserView(user),
    };
  }
}
