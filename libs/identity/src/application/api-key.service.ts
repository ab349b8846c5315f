import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { assertNoNul } from '../domain/password-policy';
import { API_KEYS_MANAGE, assertAllowed } from '../domain/permissions';
import { newOpaqueToken, sha256 } from '../infrastructure/token-service';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

const KEY_PREFIX = 'eng_';

// Organization API keys: the full key is returned once, at creation; only its SHA-256 is stored.
export class ApiKeyService {
  constructor(private readonly db: Database) {}

  async create(ctx: RequestContext, name: unknown): Promise<ApiKeyView & { api_key: string }> {
    if (ctx.role !== 'SYSTEM') assertAllowed(ctx.role, API_KEYS_MANAGE);
    if (typeof name !== 'string' || name.trim().length === 0 || name.trim().length > 100) {
      throw new DomainError('validation', 'validation_failed', 'name must be 1 to 100 characters');
    }
    assertNoNul(name, 'name');
    const apiKey = `${KEY_PREFIX}${newOpaqueToken(24)}`;
    const [row] = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null }>(
        `INSERT INTO api_keys (organization_id, name, prefix, key_hash, created_by) VALUES ($1, $2, $3, $4, $5)
         RETURNING id, name, prefix, created_at, last_used_at`,
        [ctx.organizationId, name.trim(), apiKey.slice(0, KEY_PREFIX.length + 8), sha256(apiKey), ctx.userId],
      ),
    );
    return { ...view(row), api_key: apiKey };
  }

  async list(ctx: RequestContext): Promise<ApiKeyView[]> {
    assertAllowed(ctx.role, API_KEYS_MANAGE);
    const rows = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null }>(
        'SELECT id, name, prefix, created_at, last_used_at FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at DESC',
      ),
    );
    return rows.map(view);
  }

  async revoke(ctx: RequestContext, id: string): Promise<void> {
    assertAllowed(ctx.role, API_KEYS_MANAGE);
    if (!isUuid(id)) throw new DomainError('validation', 'validation_failed', 'id must be a UUID');
    const revoked = await this.db.inTenant(ctx, (tx) => tx.execute('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]));
    if (revoked === 0) throw NotFound('api_key', id);
  }
}

const view = (row: { id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null }): ApiKeyView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
});
