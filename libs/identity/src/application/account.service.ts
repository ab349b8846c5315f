import { randomUUID } from 'node:crypto';
import { DomainError, Unauthorized } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { organizationCreated } from '../domain/organization-events';
import { assertAcceptablePassword, assertNoNul, normalizeEmail } from '../domain/password-policy';
import { REVOKE_OTHER_SESSIONS, REVOKE_USER_SESSIONS, USER_IN_ORGANIZATION, type UserRow } from '../infrastructure/identity.sql';
import { hashPassword } from '../infrastructure/password-hasher';
import { newOpaqueToken, sha256 } from '../infrastructure/token-service';
import type { EmailSender } from './email-sender.port';
import type { RateLimiter } from './rate-limiter';
import type { Reauthentication } from './reauthentication';
import { assertActive, type Session, type SessionService } from './session.service';
import { toUserView, type UserView } from './user-view';

export type EmailTokenKind = 'signup' | 'email_change' | 'recovery';

const TOKEN_HOURS: Record<EmailTokenKind, number> = { signup: 24, email_change: 24, recovery: 1 };

export interface UserChanges {
  email?: unknown;
  password?: unknown;
  nonce?: unknown;
  data?: { first_name?: unknown; last_name?: unknown; avatar_url?: unknown };
}

const text = (value: unknown, field: string, max: number): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max)
    throw new DomainError('validation', 'validation_failed', `${field} must be a string of at most ${max} characters`);
  assertNoNul(value, field);
  return value.trim();
};

// Sign-up, email confirmation, email change and password recovery (GoTrue's flows).
export class AccountService {
  constructor(
    private readonly db: Database,
    private readonly sessions: SessionService,
    private readonly mail: EmailSender,
    private readonly limiter: RateLimiter,
    private readonly publicUrl: string,
    private readonly reauthentication: Reauthentication,
  ) {}

  // A sign-up without an invitation creates a new organization with the user as its OWNER. An
  // address that already has an account gets the same answer as a new one (GoTrue with
  // confirmations on): a user object with fresh random ids, unconfirmed, no session, so the answer
  // does not tell which addresses have accounts. Nothing is created or changed; the owner of the
  // address is emailed that someone tried to sign up with it. Both paths hash the password and
  // send one email, so they take about the same time.
  async signUp(input: { email: unknown; password: unknown; data?: Record<string, unknown> }, ip: string): Promise<UserView> {
    const email = normalizeEmail(input.email);
    assertAcceptablePassword(input.password);
    await this.limiter.hit([{ key: `signup:ip:${ip}`, max: 30, windowSeconds: 3600 }]);
    const firstName = text(input.data?.first_name, 'first_name', 100) ?? email.split('@')[0];
    const lastName = text(input.data?.last_name, 'last_name', 100) ?? null;
    const organizationName = text(input.data?.organization_name, 'organization_name', 200) || `${firstName}'s organization`;
    const passwordHash = await hashPassword(input.password);
    // Sign-ups per address, counted for a new one too (the count costs both paths the same): past
    // SIGNUP_MAILS_PER_HOUR an hour, the owner is not emailed again (the answer stays the same).
    const noticesOver = await this.limiter.exceeded({ key: `signup:email:${email}`, max: SIGNUP_MAILS_PER_HOUR, windowSeconds: 3600 });
    const outcome = await this.db.asSystem(async (tx) => {
      const [created] = await tx.query<{ id: string }>(
        `INSERT INTO users (email, password_hash, first_name, last_name) VALUES ($1, $2, $3, $4) ON CONFLICT (email) DO NOTHING RETURNING id`,
        [email, passwordHash, firstName, lastName],
      );
      if (!created) {
        const [existing] = await tx.query<{ email_confirmed_at: Date | null }>('SELECT email_confirmed_at FROM users WHERE email = $1', [email]);
        return { kind: 'existing' as const, confirmed: Boolean(existing?.email_confirmed_at) };
      }
      const organizationId = randomUUID();
      await tx.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, organizationName]);
      await tx.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'OWNER')`, [organizationId, created.id]);
      await tx.emit([organizationCreated(organizationId, organizationName, created.id)]);
      const issued = await this.issueToken(tx, created.id, 'signup', null);
      const [row] = await tx.query<UserRow>(USER_IN_ORGANIZATION, [created.id, organizationId]);
      return { kind: 'created' as const, user: row, token: issued };
    });
    if (outcome.kind === 'existing') {
      // Whatever the account's state (an email skipped for a suspended one would make its answer faster).
      if (!noticesOver) await this.mail.send(this.signUpNotice(email, outcome.confirmed));
      return unregisteredUser(email, firstName, lastName);
    }
    await this.mail.send({
      to: email,
      subject: 'Confirm your email',
      text: `Welcome! Confirm your email address by opening this link within 24 hours:\n\n${this.link(outcome.token, 'signup')}\n`,
    });
    return toUserView(outcome.user);
  }

  // To the owner of an address someone tried to sign up with. No link with a token: a request
  // anyone can make must not replace the owner's pending links; the reset is asked for at sign-in.
  private signUpNotice(email: string, confirmed: boolean) {
    const state = confirmed
      ? 'No new account was created, and your account and its password were not changed.'
      : 'No new account was created. The existing account has not been confirmed yet: resetting its password also confirms the address.';
    return {
      to: email,
      subject: 'Someone tried to sign up with your email',
      text:
        `Someone, perhaps you, tried to sign up with ${email}, which already has an account.\n\n${state}\n\n` +
        `To use your account, sign in with your password. If you forgot it, choose "Forgot password" when signing in to get a reset link: ${this.publicUrl}\n\n` +
        'If it was not you, you can ignore this email.\n',
    };
  }

  // The link of every email: single use, expiring; a valid one signs the user in.
  async verify(token: unknown, type: unknown): Promise<Session> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw otpInvalid();
    if (type !== 'signup' && type !== 'email_change' && type !== 'recovery' && type !== 'email') {
      throw new DomainError('validation', 'validation_failed', 'type must be signup, email_change or recovery');
    }
    const userId = await this.db.asSystem(async (tx) => {
      const [row] = await tx.query<{ id: string; user_id: string; kind: EmailTokenKind; new_email: string | null; expires_at: Date; used_at: Date | null }>(
        'SELECT id, user_id, kind, new_email, expires_at, used_at FROM email_tokens WHERE token_hash = $1 FOR UPDATE',
        [sha256(token)],
      );
      const kindMatches = row && (row.kind === type || (type === 'email' && row.kind === 'signup'));
      if (!row || !kindMatches || row.used_at || row.expires_at.getTime() < Date.now()) throw otpInvalid();
      await tx.query('UPDATE email_tokens SET used_at = now() WHERE id = $1', [row.id]);
      // Whoever holds the recovery link owns the mailbox: every earlier session (an intruder's too) ends.
      if (row.kind === 'recovery') await tx.query(REVOKE_USER_SESSIONS, [row.user_id]);
      if (row.kind === 'email_change') {
        const [taken] = await tx.query('SELECT 1 FROM users WHERE email = $1 AND id <> $2', [row.new_email, row.user_id]);
        if (taken) throw new DomainError('validation', 'email_exists', 'A user with this email address has already been registered');
        await tx.query(
          'UPDATE users SET email = new_email, new_email = NULL, email_confirmed_at = now(), updated_at = now() WHERE id = $1 AND new_email = $2',
          [row.user_id, row.new_email],
        );
      } else {
        await tx.query('UPDATE users SET email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() WHERE id = $1', [row.user_id]);
      }
      return row.user_id;
    });
    return this.sessions.openSessionFor(userId);
  }

  // Always answers the same, so it does not tell which addresses have accounts.
  async recover(email: unknown, ip: string): Promise<void> {
    const normalized = normalizeEmail(email);
    await this.limiter.hit([
      { key: `recover:email:${normalized}`, max: 5, windowSeconds: 3600 },
      { key: `recover:ip:${ip}`, max: 30, windowSeconds: 3600 },
    ]);
    const token = await this.db.asSystem(async (tx) => {
      const [user] = await tx.query<{ id: string; status: string }>('SELECT id, status FROM users WHERE email = $1', [normalized]);
      if (!user || user.status !== 'active') return undefined;
      return this.issueToken(tx, user.id, 'recovery', null);
    });
    if (token === undefined) return;
    await this.mail.send({
      to: normalized,
      subject: 'Reset your password',
      text: `Open this link within an hour to sign in and choose a new password:\n\n${this.link(token, 'recovery')}\n`,
    });
  }

  // PUT /auth/v1/user: a new email takes effect only when the link sent to it is opened. A new
  // password ends every other session of the user (access tokens too: the session check runs per request).
  async updateUser(userId: string, organizationId: string, sessionId: string, changes: UserChanges): Promise<UserView> {
    const password = changes.password === undefined ? undefined : (assertAcceptablePassword(changes.password), await hashPassword(changes.password as string));
    const newEmail = changes.email === undefined ? undefined : normalizeEmail(changes.email);
    const firstName = text(changes.data?.first_name, 'first_name', 100);
    const lastName = text(changes.data?.last_name, 'last_name', 100);
    const avatarUrl = text(changes.data?.avatar_url, 'avatar_url', 2048);
    if (password !== undefined) await this.reauthentication.countTry(userId, changes.nonce);
    const { user, token } = await this.db.asSystem(async (tx) => {
      const [current] = await tx.query<UserRow>(USER_IN_ORGANIZATION, [userId, organizationId]);
      if (!current) throw Unauthorized('bad_jwt', 'User from sub claim in JWT does not exist');
      assertActive(current.status);
      if (password !== undefined) await this.reauthentication.assertRecent(tx, userId, sessionId, changes.nonce);
      await tx.query(
        `UPDATE users SET password_hash = coalesce($2, password_hash), first_name = coalesce($3, first_name), last_name = coalesce($4, last_name),
                avatar_url = coalesce($5, avatar_url), updated_at = now() WHERE id = $1`,
        [userId, password ?? null, firstName ?? null, lastName ?? null, avatarUrl ?? null],
      );
      if (password !== undefined) await tx.query(REVOKE_OTHER_SESSIONS, [userId, sessionId]);
      let issued: string | undefined;
      if (newEmail !== undefined && newEmail !== current.email) {
        const [taken] = await tx.query('SELECT 1 FROM users WHERE email = $1', [newEmail]);
        if (taken) throw new DomainError('validation', 'email_exists', 'A user with this email address has already been registered');
        await tx.query('UPDATE users SET new_email = $2 WHERE id = $1', [userId, newEmail]);
        issued = await this.issueToken(tx, userId, 'email_change', newEmail);
      }
      const [row] = await tx.query<UserRow>(USER_IN_ORGANIZATION, [userId, organizationId]);
      return { user: row, token: issued };
    });
    if (password !== undefined) {
      await this.mail.send({
        to: user.email,
        subject: 'Your password was changed',
        text:
          'The password of your account was changed, and every other session of it was signed out.\n\n' +
          `If you did not do this, reset your password now: ${this.publicUrl}\n`,
      });
    }
    if (token !== undefined && newEmail !== undefined) {
      await this.mail.send({
        to: newEmail,
        subject: 'Confirm your new email',
        text: `Open this link to make ${newEmail} the email of your account:\n\n${this.link(token, 'email_change')}\n`,
      });
    }
    return toUserView(user);
  }

  // A new signup link for a user whose address is not confirmed yet (onboarding's verify-email):
  // the same token and mail as sign-up, and the older link stops working. False when already confirmed.
  async resendConfirmation(userId: string): Promise<boolean> {
    await this.limiter.hit([{ key: `resend:user:${userId}`, max: 5, windowSeconds: 3600 }]);
    const issued = await this.db.asSystem(async (tx) => {
      const [user] = await tx.query<{ email: string }>('SELECT email FROM users WHERE id = $1 AND email_confirmed_at IS NULL FOR UPDATE', [userId]);
      return user ? { email: user.email, token: await this.issueToken(tx, userId, 'signup', null) } : undefined;
    });
    if (!issued) return false;
    await this.mail.send({
      to: issued.email,
      subject: 'Confirm your email',
      text: `Confirm your email address by opening this link within 24 hours:\n\n${this.link(issued.token, 'signup')}\n`,
    });
    return true;
  }

  private async issueToken(tx: Tx, userId: string, kind: EmailTokenKind, newEmail: string | null): Promise<string> {
    const token = newOpaqueToken();
    // A new link replaces older unused ones of the same kind.
    await tx.query('UPDATE email_tokens SET used_at = now() WHERE user_id = $1 AND kind = $2 AND used_at IS NULL', [userId, kind]);
    await tx.query(`INSERT INTO email_tokens (user_id, kind, token_hash, new_email, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5))`, [
      userId,
      kind,
      sha256(token),
      newEmail,
      TOKEN_HOURS[kind],
    ]);
    return token;
  }

  private link(token: string, type: EmailTokenKind): string {
    return `${this.publicUrl}/auth/v1/verify?token=${encodeURIComponent(token)}&type=${type}`;
  }
}

const otpInvalid = () => new DomainError('forbidden', 'otp_expired', 'Email link is invalid or has expired');

// Sign-up emails to one address an hour (its confirmation, then notices of further attempts):
// someone signing up again and again with an address does not flood its owner.
export const SIGNUP_MAILS_PER_HOUR = 3;

// The answer to a sign-up with an address that has an account: what a new sign-up answers, with
// ids that exist nowhere (GoTrue's sanitised user).
function unregisteredUser(email: string, firstName: string, lastName: string | null): UserView {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    email,
    first_name: firstName,
    last_name: lastName,
    avatar_url: null,
    organization_id: randomUUID(),
    role: 'OWNER',
    email_confirmed_at: null,
    new_email: null,
    last_sign_in_at: null,
    created_at: now,
    updated_at: now,
  };
}
