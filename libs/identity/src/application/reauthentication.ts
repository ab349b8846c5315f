import { randomInt, timingSafeEqual } from 'node:crypto';
import { DomainError, Unauthorized } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { SESSION_SIGNED_IN_AT } from '../infrastructure/identity.sql';
import { sha256 } from '../infrastructure/token-service';
import type { EmailSender } from './email-sender.port';
import type { RateLimiter } from './rate-limiter';
import { assertActive } from './session.service';

// GoTrue's secure password change: a session older than this needs a nonce to change the password.
export const REAUTHENTICATE_AFTER_HOURS = 24;
const NONCE_MINUTES = 60;
// Six digits are few: wrong guesses are limited per user.
const NONCE_TRIES = { max: 5, windowSeconds: 900 };

// Per user, so equal nonces of two users never share a hash.
const nonceHash = (userId: string, nonce: string) => sha256(`${userId}:${nonce}`);

export const reauthenticationNeeded = () => new DomainError('validation', 'reauthentication_needed', 'Password update requires reauthentication');
const notValid = () => new DomainError('validation', 'reauthentication_not_valid', 'Reauthentication nonce is invalid or has expired');

export class Reauthentication {
  constructor(
    private readonly db: Database,
    private readonly mail: EmailSender,
    private readonly limiter: RateLimiter,
  ) {}

  // GET /auth/v1/reauthenticate: emails a 6-digit nonce; a new one replaces the previous.
  async sendNonce(userId: string): Promise<void> {
    await this.limiter.hit([{ key: `reauth-send:user:${userId}`, max: 10, windowSeconds: 3600 }]);
    const nonce = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const email = await this.db.asSystem(async (tx) => {
      const [user] = await tx.query<{ email: string; status: string }>('SELECT email, status FROM users WHERE id = $1', [userId]);
      if (!user) throw Unauthorized('bad_jwt', 'User from sub claim in JWT does not exist');
      assertActive(user.status);
      await tx.query(`UPDATE email_tokens SET used_at = now() WHERE user_id = $1 AND kind = 'reauthentication' AND used_at IS NULL`, [userId]);
      await tx.query(
        `INSERT INTO email_tokens (user_id, kind, token_hash, expires_at) VALUES ($1, 'reauthentication', $2, now() + make_interval(mins => $3))`,
        [userId, nonceHash(userId, nonce), NONCE_MINUTES],
      );
      return user.email;
    });
    await this.mail.send({
      to: email,
      subject: 'Confirm it is you',
      text:
        `Enter this code to confirm the change to your account:\n\n${nonce}\n\nIt is valid for ${NONCE_MINUTES} minutes. ` +
        'If you did not ask for it, someone may be using your session: change your password.\n',
    });
  }

  // Before a password change can be made: counts a presented nonce against the user's tries.
  async countTry(userId: string, nonce: unknown): Promise<void> {
    if (nonce !== undefined && nonce !== '') await this.limiter.hit([{ key: `reauth-verify:user:${userId}`, ...NONCE_TRIES }]);
  }

  // Inside the password change's transaction: a session opened within 24 hours passes; an older one
  // needs the emailed nonce, which is then spent.
  async assertRecent(tx: Tx, userId: string, sessionId: string, nonce: unknown): Promise<void> {
    const [session] = await tx.query<{ signed_in_at: Date | null }>(SESSION_SIGNED_IN_AT, [sessionId]);
    const age = session?.signed_in_at ? Date.now() - session.signed_in_at.getTime() : Infinity;
    if (age < REAUTHENTICATE_AFTER_HOURS * 3_600_000) return;
    if (nonce === undefined || nonce === '') throw reauthenticationNeeded();
    if (typeof nonce !== 'string' || !/^\d{6}$/.test(nonce)) throw notValid();
    const [row] = await tx.query<{ id: string; token_hash: Buffer }>(
      `SELECT id, token_hash FROM email_tokens WHERE user_id = $1 AND kind = 'reauthentication' AND used_at IS NULL AND expires_at > now()
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [userId],
    );
    if (!row || !timingSafeEqual(row.token_hash, nonceHash(userId, nonce))) throw notValid();
    await tx.query('UPDATE email_tokens SET used_at = now() WHERE id = $1', [row.id]);
  }
}
