import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';

// Reads the messaging tests repeat: a query in a tenant's transaction (its row-level security
// applies), and the payloads of the outbox events of one type, oldest first.
export function tenantQueries(runtime: PlatformRuntime) {
  return {
    rows: <T = Record<string, unknown>>(t: TestTenant, sql: string, params: unknown[] = []) => runtime.db.inTenant(t.ctx, (tx) => tx.query<T>(sql, params)),
    events: <P = Record<string, unknown>>(t: TestTenant, type: string) =>
      runtime.db.asSystem((tx) =>
        tx.query<{ payload: P }>(`SELECT payload FROM outbox WHERE organization_id = $1 AND type = $2 ORDER BY seq`, [t.ctx.organizationId, type]),
      ),
  };
}
