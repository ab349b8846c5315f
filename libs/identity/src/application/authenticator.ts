import { isRole, isUuid, type RequestContext, Unauthorized } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { API_KEY_BY_HASH, SESSION_CHECK, TOUCH_API_KEY } from '../infrastructure/identity.sql';
import { sha256, type TokenService } from '../infrastructure/token-service';
import { assertActive } from './session.service';

export type CredentialKind = 'session' | 'api_key';

export interface Caller {
  ctx: RequestContext;
  kind: CredentialKind;
  sessionId: string | null;
}

export interface Credentials {
  bearer?: string;
  apiKey?: string;
  requestId: string;
  // The organization's gate, asked before the credentials cost a query (gated routes only): it
  // rejects with 429 when the organization already has every slot and queue place taken.
  admit?: (organizationId: string) => Promise<void>;
}

const API_KEY_TOUCH_MS = 60_000;
// API keys' organizations remembered for the gate's early refusal only (never to authenticate).
const KNOWN_KEYS_MAX = 10_000;

// Turns a Bearer session JWT or an organization API key into the caller's context. Every request
// re-checks the account state, the membership and the session, so a deactivated account, a removed
// member or a signed-out session is refused even while its JWT is unexpired.
export class Authenticator {
  private readonly keyOrganizations = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly tokens: TokenService,
  ) {}

  async authenticate(credentials: Credentials, accept: readonly CredentialKind[]): Promise<Caller> {
    if (credentials.apiKey !== undefined && accept.includes('api_key')) return this.byApiKey(credentials.apiKey, credentials);
    if (credentials.bearer !== undefined && accept.includes('session')) return this.bySession(credentials.bearer, credentials);
    const wanted = accept.map((kind) => (kind === 'session' ? 'a Bearer access token' : 'an X-API-Key header')).join(' or ');
    throw Unauthorized('no_authorization', `This endpoint requires ${wanted}`);
  }

  private async bySession(token: string, { requestId, admit }: Credentials): Promise<Caller> {
    const claims = await this.tokens.verify(token);
    if (claims.role === 'anon') throw Unauthorized('no_authorization', 'The anon key does not identify a user; sign in first');
    const { sub, organization_id: organizationId, session_id: sessionId } = claims;
    if (!isUuid(sub) || !isUuid(organizationId) || !isUuid(sessionId)) throw Unauthorized('bad_jwt', 'Invalid token');
    // The signature holds, so the organization is the one the token was issued for.
    await admit?.(organizationId);
    const check = [sub, organizationId, sessionId];
    const [row] = await this.db.systemQuery<{ status: string; role: string; alive: boolean }>(SESSION_CHECK, check, { prepare: true });
    if (!row) throw Unauthorized('bad_jwt', 'User from sub claim in JWT does not exist');
    assertActive(row.status);
    if (!row.alive) throw Unauthorized('session_not_found', 'Session from session_id claim in JWT does not exist');
    if (!isRole(row.role)) throw Unauthorized('bad_jwt', 'Invalid token');
    return { ctx: { organizationId, userId: sub, role: row.role, requestId }, kind: 'session', sessionId };
  }

  private async byApiKey(apiKey: string, { requestId, admit }: Credentials): Promise<Caller> {
    if (apiKey.length < 10 || apiKey.length > 200) throw Unauthorized('invalid_api_key', 'Invalid API key');
    const hash = sha256(apiKey);
    const known = this.keyOrganizations.get(hash.toString('base64'));
    if (known && admit) await admit(known);
    const [key] = await this.db.systemQuery<{ id: string; organization_id: string; last_used_at: Date | null }>(API_KEY_BY_HASH, [hash], { prepare: true });
    if (!key) {
      this.keyOrganizations.delete(hash.toString('base64'));
      throw Unauthorized('invalid_api_key', 'Invalid API key');
    }
    this.remember(hash, key.organization_id);
    // last_used_at is shown to admins; a minute of precision saves a write per request.
    if (!key.last_used_at || Date.now() - key.last_used_at.getTime() > API_KEY_TOUCH_MS) {
      await this.db.systemQuery(TOUCH_API_KEY, [key.id], { prepare: true });
    }
    return { ctx: { organizationId: key.organization_id, userId: null, role: 'API_KEY', requestId }, kind: 'api_key', sessionId: null };
  }

  private remember(hash: Buffer, organizationId: string): void {
    const remembered = hash.toString('base64');
    if (this.keyOrganizations.has(remembered)) return;
    if (this.keyOrganizations.size >= KNOWN_KEYS_MAX) this.keyOrganizations.delete(this.keyOrganizations.keys().next().value as string);
    this.keyOrganizations.set(remembered, organizationId);
  }
}
