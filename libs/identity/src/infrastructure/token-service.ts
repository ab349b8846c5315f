import { createHash, createHmac, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { Unauthorized } from '@engage/shared-kernel';

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_DAYS = 30;

export interface AccessClaims {
  sub: string;
  organization_id: string;
  role: string;
  session_id: string;
  email: string;
}

// Session JWTs (HS256 with JWT_SECRET); refresh tokens and API keys are random and stored hashed.
// Verified access tokens remembered (a client sends the same one with every request until it
// refreshes it): the HMAC check through WebCrypto (a thread-pool job per request) is then not repeated.
const VERIFIED_TOKENS_MAX = 10_000;

export class TokenService {
  private readonly verified = new Map<string, Readonly<Record<string, unknown>>>();
  private readonly key: Uint8Array;
  private readonly successorKey: Buffer;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
    this.successorKey = createHmac('sha256', secret).update('refresh-token-successor').digest();
  }

  async issueAccessToken(claims: AccessClaims, now = new Date()): Promise<{ token: string; expiresAt: number }> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + ACCESS_TOKEN_SECONDS;
    const token = await new SignJWT({ ...claims, aud: 'authenticated', is_anonymous: false })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setIssuer('engage')
      .sign(this.key);
    return { token, expiresAt };
  }

  // The anon key is public (it identifies the project to browser clients) and grants nothing tenant-scoped.
  issueAnonKey(): Promise<string> {
    return new SignJWT({ role: 'anon' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(0).setIssuer('engage').sign(this.key);
  }

  // Every token but the anon key must expire: a signed token without exp would be valid forever.
  // A token verified before (the very same text, signature included) is not checked through
  // WebCrypto again: its expiry is (the key does not change within a process).
  async verify(token: string): Promise<Readonly<Record<string, unknown>>> {
    const known = this.verified.get(token);
    if (known && (known.exp === undefined || (known.exp as number) > Math.floor(Date.now() / 1000))) return known;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: 'engage' }));
    } catch (error) {
      this.verified.delete(token);
      const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw Unauthorized(expired ? 'token_expired' : 'bad_jwt', expired ? 'Token has expired' : 'Invalid token');
    }
    if (payload.role !== 'anon' && typeof payload.exp !== 'number') throw Unauthorized('bad_jwt', 'Invalid token: no exp claim');
    // Only what the check above fully decides is remembered (a not-before claim would need its own).
    if (payload.nbf === undefined) this.remember(token, Object.freeze(payload));
    return payload;
  }

  private remember(token: string, payload: Readonly<Record<string, unknown>>): void {
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, payload);
  }

  // The refresh token that replaces `token` on rotation. Derived rather than random so that a
  // concurrent refresh with the same token (within the grace window) can be given the same new
  // token without its plaintext ever being stored; unguessable without the token and JWT_SECRET.
  successorRefreshToken(token: string): string {
    return createHmac('sha256', this.successorKey).update(token).digest('base64url');
  }
}

export const newOpaqueToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();
