import { randomUUID } from 'node:crypto';
import { DomainError, Forbidden, Unauthorized } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { normalizeEmail } from '../domain/password-policy';
import {
  INSERT_REFRESH_TOKEN,
  MARK_REFRESH_USED,
  MARK_SIGNED_IN,
  REFRESH_TOKEN_BY_HASH,
  REFRESH_TOKEN_FOR_UPDATE,
  type RefreshTokenRow,
  REVOKE_FAMILY,
  REVOKE_OTHER_SESSIONS,
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
const refreshNotFound = () => new DomainError('validation', 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');

const LOGIN_WINDOW_SECONDS = 300;
// GoTrue's refresh token reuse interval.
export const REFRESH_GRACE_SECONDS = 10;
const MAX_SUCCESSOR_HOPS = 10;

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
    // Refused per (email, address) and per address, so guesses from one address cannot lock the user
    // out elsewhere; across addresses the email's attempts are only slowed.
    await this.limiter.hit([
      { key: `login:email-ip:${normalized}:${ip}`, max: this.limits.perEmail, windowSeconds: LOGIN_WINDOW_SECONDS },
      { key: `login:ip:${ip}`, max: this.limits.perIp, windowSeconds: LOGIN_WINDOW_SECONDS },
    ]);
    await this.limiter.slowDown({ key: `login:email:${normalized}`, max: this.limits.perEmail, windowSeconds: LOGIN_WINDOW_SECONDS });
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

  // Rotation: each refresh token works once. Presenting a used one again within the grace window is
  // a concurrent refresh (several tabs at once) and gets the same new token; later, it is a replay and
  // revokes the whole family.
  async refresh(refreshToken: unknown): Promise<Session> {
    if (typeof refreshToken !== 'string' || refreshToken.length === 0 || refreshToken.length > 200) throw refreshNotFound();
    type Outcome = { kind: 'session'; session: Session } | { kind: 'inactive'; status: string } | { kind: 'not_found' | 'already_used' };
    const outcome = await this.db.asSystem(async (tx): Promise<Outcome> => {
      const [token] = await tx.query<RefreshTokenRow>(REFRESH_TOKEN_FOR_UPDATE, [sha256(refreshToken), REFRESH_GRACE_SECONDS]);
      if (!token || token.revoked_at || token.expires_at.getTime() < Date.now()) return { kind: 'not_found' };
      if (token.used_at && !token.in_grace) {
        // Committed on purpose: the family stays revoked although this call fails.
        await tx.query(REVOKE_FAMILY, [token.family_id]);
        return { kind: 'already_used' };
      }
      const [user] = await tx.query<UserRow>(USER_IN_ORGANIZATION, [token.user_id, token.organization_id]);
      if (!user) return { kind: 'not_found' };
      if (user.status !== 'active') return { kind: 'inactive', status: user.status };
      if (token.used_at) {
        const current = await this.currentSuccessor(tx, refreshToken);
        return current ? { kind: 'session', session: await this.sessionOf(user, token.family_id, current) } : { kind: 'not_found' };
      }
      await tx.query(MARK_REFRESH_USED, [token.id]);
      return { kind: 'session', session: await this.openSession(tx, user, token.family_id, this.tokens.successorRefreshToken(refreshToken)) };
    });
    if (outcome.kind === 'session') return outcome.session;
    if (outcome.kind === 'inactive') assertActive(outcome.status);
    if (outcome.kind === 'already_used') throw new DomainError('validation', 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
    throw refreshNotFound();
  }

  // The family's live token after `token`: its successor, or that one's if it was rotated too (tabs refreshing in turn).
  private async currentSuccessor(tx: Tx, token: string): Promise<string | undefined> {
    let candidate = token;
    for (let hop = 0; hop < MAX_SUCCESSOR_HOPS; hop++) {
      candidate = this.tokens.successorRefreshToken(candidate);
      const [row] = await tx.query<RefreshTokenRow>(REFRESH_TOKEN_BY_HASH, [sha256(candidate)]);
      if (!row || row.revoked_at) return undefined;
      if (!row.used_at) return candidate;
    }
    return undefined;
  }

  // scope global (GoTrue's default): every session of the user; local: this one only.
  async signOut(userId: string, sessionId: string, scope: 'global' | 'local' | 'others'): Promise<void> {
    await this.db.asSystem(async (tx) => {
      if (scope === 'local') await tx.query(REVOKE_FAMILY, [sessionId]);
      else if (scope === 'global') await tx.query(REVOKE_USER_SESSIONS, [userId]);
      else await tx.query(REVOKE_OTHER_SESSIONS, [userId, sessionId]);
    });
  }

  async currentUser(userId: string, organizationId: string): Promise<UserView> {
    const [user] = await this.db.systemQuery<UserRow>(USER_IN_ORGANIZATION, [userId, organizationId]);
    if (!user) throw Unauthorized('bad_jwt', 'User from sub claim in JWT does not exist');
    return toUserView(user);
  }

  private async openSession(tx: Tx, user: UserRow, familyId: string, refreshToken = newOpaqueToken()): Promise<Session> {
    await tx.query(INSERT_REFRESH_TOKEN, [familyId, user.id, user.organization_id, sha256(refreshToken), REFRESH_TOKEN_DAYS]);
    return this.sessionOf(user, familyId, refreshToken);
  }

  private async sessionOf(user: UserRow, familyId: string, refreshToken: string): Promise<Session> {
    const access = await this.tokens.issueAccessToken({
      sub: user.id,
      organization_id: user.organization_id,
      role: user.role,
      session_id: familyId,
      email: user.email,
    });
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
