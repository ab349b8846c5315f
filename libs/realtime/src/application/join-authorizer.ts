import type { Authenticator, TokenService } from '@engage/identity';
import { DomainError, type RequestContext } from '@engage/shared-kernel';

// Who a channel reads as: the caller /rest/v1 (a member's session JWT) or the record proxy (an
// organization's API key) would see, decided by the same Authenticator.
export interface Grant {
  ctx: RequestContext;
  kind: 'session' | 'api_key';
  // The token or key, to check again while the channel lives.
  credential: string;
  // A session's expiry (ms since the epoch); API keys have none.
  expiresAt: number | undefined;
}

// A refusal the client is told about (the join's error reply, or the channel's system message).
export class Refused extends Error {}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export class JoinAuthorizer {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly tokens: TokenService,
  ) {}

  // A JWT is a session (the anon key identifies nobody and is refused); anything else an API key.
  async authorize(credential: string | undefined, requestId: string): Promise<Grant> {
    if (!credential) throw new Refused('no credentials: send the apikey query parameter or an access_token in the join payload');
    try {
      if (JWT.test(credential)) {
        const claims = await this.tokens.verify(credential);
        const { ctx } = await this.authenticator.authenticate({ bearer: credential, requestId }, ['session']);
        return { ctx, kind: 'session', credential, expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined };
      }
      const { ctx } = await this.authenticator.authenticate({ apiKey: credential, requestId }, ['api_key']);
      return { ctx, kind: 'api_key', credential, expiresAt: undefined };
    } catch (error) {
      if (error instanceof DomainError) throw new Refused(error.message);
      throw error;
    }
  }
}
