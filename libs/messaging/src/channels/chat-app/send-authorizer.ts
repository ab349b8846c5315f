import { NotFound, type RequestContext, Unauthorized } from '@engage/shared-kernel';
import type { Authenticator, TokenService } from '@engage/identity';

export interface SendCredentials {
  bearer?: string;
  apiKey?: string;
  requestId: string;
  admit?: (organizationId: string) => Promise<void>;
}

// Who may send for an organization: a session of one of its members, or its own API key. The anon
// key is public (it ships in browser bundles), so it is accepted only when ALLOW_ANON_SEND=true.
export class SendAuthorizer {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly tokens: TokenService,
    private readonly allowAnon: boolean,
  ) {}

  // First step: who is calling (401 when nobody).
  async identify(credentials: SendCredentials): Promise<{ ctx: RequestContext | null; anon: boolean }> {
    if (credentials.apiKey === undefined && credentials.bearer !== undefined) {
      const claims = await this.tokens.verify(credentials.bearer);
      if (claims.role === 'anon') {
        if (!this.allowAnon)
          throw Unauthorized('anon_send_disabled', "The anon key cannot send messages; use a signed-in session or the organization's X-API-Key");
        return { ctx: null, anon: true };
      }
    }
    const caller = await this.authenticator.authenticate(credentials, ['api_key', 'session']);
    return { ctx: caller.ctx, anon: false };
  }

  // Second step, once the body named the organization: the caller must belong to it. Another
  // organization's id gets the same 404 as one that does not exist (§7), so the answer does not
  // tell a caller which organizations exist.
  contextFor(identity: { ctx: RequestContext | null; anon: boolean }, organizationId: string, requestId: string): RequestContext {
    if (identity.anon) return { organizationId, userId: null, role: 'SYSTEM', requestId };
    const ctx = identity.ctx!;
    if (ctx.organizationId !== organizationId) throw NotFound('organization', organizationId);
    return ctx;
  }
}
