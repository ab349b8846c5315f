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
export class TokenService {
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
  async verify(token: string): Promise<Record<string, unknown>> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: 'engage' }));
    } catch (error) {
      const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw Unauthorized(expired ? 'token_expired' : 'bad_jwt', expired ? 'Token has expired' : 'Invalid token');
    }
    if (payload.role !== 'anon' && typeof payload.exp !== 'number') throw Unauthorized('bad_jwt', 'Invalid token: no exp claim');
    return payload;
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
