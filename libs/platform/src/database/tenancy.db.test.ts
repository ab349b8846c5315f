import { randomUUID } from 'node:crypto';
import { createEvent } from '@engage/shared-kernel';
import { makeOrganization, startTestRuntime } from '../testing';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import type { Tx } from './database';

// A tenant table as a context would create it: enable_tenant_rls is the one wall every table gets.
async function createNotesTable(runtime: PlatformRuntime) {
  await runtime.db.asSystem(async (tx) => {
    await tx.query(`CREATE TABLE IF NOT EXISTS tenancy_notes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      organization_id uuid NOT NULL REFERENCES organizations(id),
      body text NOT NULL)`);
    const [existing] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_policies WHERE tablename = 'tenancy_notes'`);
    if (existing.n === 0) await tx.query(`SELECT enable_tenant_rls('tenancy_notes')`);
  });
}

describe('tenancy (row-level security)', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api' });
    await createNotesTable(runtime);
  });
  afterAll(() => runtime.close());

  const addNote = (orgId: string, body: string) =>
    runtime.db.inTenant({ organizationId: orgId, userId: null, role: 'OWNER', requestId: 't' }, (tx) =>
      tx.query<{ id: string }>('INSERT INTO tenancy_notes (organization_id, body) VALUES ($1, $2) RETURNING id', [orgId, body]),
    );

  it('should run tenant work as a role without BYPASSRLS, on a table with FORCE row-level security', async () => {
    const a = await makeOrganization(runtime);
    const [row] = await runtime.db.inTenant(a, (tx) =>
      tx.query<{ role: string; bypass: boolean; forced: boolean; org: string }>(`
        SELECT current_user AS role, r.rolbypassrls AS bypass, c.relforcerowsecurity AS forced, current_setting('app.org_id') AS org
        FROM pg_roles r, pg_class c WHERE r.rolname = current_user AND c.relname = 'tenancy_notes'`),
    );
    expect(row).toEqual({ role: 'app_tenant', bypass: false, forced: true, org: a.organizationId });
  });

  it('should return nothing and accept no insert without an organization context', async () => {
    const a = await makeOrganization(runtime);
    await addNote(a.organizationId, 'visible only to A');
    const rows = await runtime.db.withoutTenant((tx) => tx.query('SELECT * FROM tenancy_notes'));
    expect(rows).toEqual([]);
    await expect(
      runtime.db.withoutTenant((tx) => tx.query('INSERT INTO tenancy_notes (organization_id, body) VALUES ($1, $2)', [a.organizationId, 'x'])),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('should keep row-level security for prepared statements, whose plans are reused across organizations on a connection', async () => {
    const [a, b] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    await addNote(a.organizationId, 'note of A');
    await addNote(b.organizationId, 'note of B');
    const bodies = (org: { organizationId: string }) =>
      runtime.db.inTenant({ ...org, userId: null, role: 'OWNER', requestId: 't' }, (tx) =>
        tx.query<{ body: string }>('SELECT body FROM tenancy_notes WHERE body LIKE $1', ['note of %'], { prepare: true }),
      );
    // Past PostgreSQL's first five custom plans, alternating organizations, on every pooled connection.
    for (let round = 0; round < 12; round++) {
      const [seenByA, seenByB] = await Promise.all([bodies(a), bodies(b)]);
      expect(seenByA.map((r) => r.body)).toEqual(['note of A']);
      expect(seenByB.map((r) => r.body)).toEqual(['note of B']);
    }
    const insertForeign = runtime.db.inTenant(a, (tx) =>
      tx.execute('INSERT INTO tenancy_notes (organization_id, body) VALUES ($1, $2)', [b.organizationId, 'x'], { prepare: true }),
    );
    await expect(insertForeign).rejects.toMatchObject({ code: '42501' });
    const counted = await runtime.db.inTenant(a, (tx) =>
      tx.execute('UPDATE tenancy_notes SET body = body WHERE body LIKE $1', ['note of %'], { prepare: true }),
    );
    expect(counted).toBe(1);
  });

  it("should never let organization A read, update or delete B's rows, even through raw SQL", async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    const [bNote] = await addNote(b.organizationId, "B's secret");
    await addNote(a.organizationId, "A's note");

    const seen = await runtime.db.inTenant(a, (tx) => tx.query<{ body: string }>('SELECT body FROM tenancy_notes'));
    expect(seen.map((row) => row.body)).toEqual(["A's note"]);
    const byId = await runtime.db.inTenant(a, (tx) => tx.query('SELECT * FROM tenancy_notes WHERE id = $1', [bNote.id]));
    expect(byId).toEqual([]);
    const updated = await runtime.db.inTenant(a, (tx) => tx.execute(`UPDATE tenancy_notes SET body = 'stolen' WHERE id = $1`, [bNote.id]));
    expect(updated).toBe(0);
    const deleted = await runtime.db.inTenant(a, (tx) => tx.execute('DELETE FROM tenancy_notes WHERE organization_id = $1', [b.organizationId]));
    expect(deleted).toBe(0);
    await expect(addNoteAs(a.organizationId, b.organizationId)).rejects.toMatchObject({ code: '42501' });
    // Moving A's row into B is refused too (WITH CHECK).
    await expect(runtime.db.inTenant(a, (tx) => tx.query('UPDATE tenancy_notes SET organization_id = $1', [b.organizationId]))).rejects.toMatchObject({
      code: '42501',
    });
    // A cannot leave its role either: the session is reset when the transaction ends.
    const [still] = await runtime.db.inTenant(b, (tx) => tx.query<{ body: string }>('SELECT body FROM tenancy_notes WHERE id = $1', [bNote.id]));
    expect(still.body).toBe("B's secret");
  });

  async function addNoteAs(actingOrg: string, targetOrg: string) {
    return runtime.db.inTenant({ organizationId: actingOrg, userId: null, role: 'OWNER', requestId: 't' }, (tx) =>
      tx.query('INSERT INTO tenancy_notes (organization_id, body) VALUES ($1, $2)', [targetOrg, 'planted']),
    );
  }

  it('should not let a tenant see other organizations, nor write the outbox for them', async () => {
    const a = await makeOrganization(runtime, 'A');
    const b = await makeOrganization(runtime, 'B');
    const orgs = await runtime.db.inTenant(a, (tx) => tx.query<{ id: string }>('SELECT id FROM organizations'));
    expect(orgs.map((o) => o.id)).toEqual([a.organizationId]);
    const foreign = createEvent({ type: 'x.happened', source: 'test', organizationId: b.organizationId, aggregateId: 'x', payload: {} });
    await expect(runtime.db.inTenant(a, (tx) => tx.emit([foreign]))).rejects.toMatchObject({ code: '42501' });
    await expect(runtime.db.inTenant(a, (tx) => tx.query('SELECT * FROM outbox'))).rejects.toMatchObject({ code: '42501' });
  });

  it('should reset the tenant settings when a pooled connection is reused', async () => {
    const a = await makeOrganization(runtime);
    await runtime.db.inTenant(a, async () => undefined);
    const [row] = await runtime.db.asSystem((tx) =>
      tx.query<{ org: string | null; role: string }>(`SELECT current_setting('app.org_id', true) AS org, current_user AS role`),
    );
    expect(row.role).not.toBe('app_tenant');
    expect(row.org ?? '').toBe('');
  });

  it('should run read-only work in a read-only transaction, with the same tenant settings and limits', async () => {
    const a = await makeOrganization(runtime);
    await addNote(a.organizationId, 'kept');
    const [row] = await runtime.db.inTenant(
      a,
      (tx) =>
        tx.query<{ ro: string; org: string; role: string; timeout: string; notes: number }>(
          `SELECT current_setting('transaction_read_only') AS ro, current_setting('app.org_id') AS org, current_user AS role,
                  current_setting('statement_timeout') AS timeout, (SELECT count(*)::int FROM tenancy_notes) AS notes`,
        ),
      { readOnly: true },
    );
    expect(row).toEqual({ ro: 'on', org: a.organizationId, role: 'app_tenant', timeout: '8s', notes: 1 });
    const write = (tx: Tx) => tx.query('INSERT INTO tenancy_notes (organization_id, body) VALUES ($1, $2)', [a.organizationId, 'refused']);
    await expect(runtime.db.inTenant(a, write, { readOnly: true })).rejects.toThrow(/read-only/);
    const [plain] = await runtime.db.inTenant(a, (tx) => tx.query<{ ro: string }>(`SELECT current_setting('transaction_read_only') AS ro`));
    expect(plain.ro).toBe('off');
  });

  it('should set values with quotes and backslashes literally, never as SQL', async () => {
    const a = await makeOrganization(runtime);
    const requestId = `x'); SELECT set_config('app.org_id', '${randomUUID()}', true); --\\'`;
    const [row] = await runtime.db.inTenant({ ...a, requestId }, (tx) =>
      tx.query<{ request: string; org: string }>(`SELECT current_setting('app.request_id') AS request, current_setting('app.org_id') AS org`),
    );
    expect(row).toEqual({ request: requestId, org: a.organizationId });
  });

  it('should roll back failed work and lend the connection again outside any transaction', async () => {
    const a = await makeOrganization(runtime);
    const failing = runtime.db.inTenant(a, async (tx) => {
      await tx.query('INSERT INTO tenancy_notes (organization_id, body) VALUES ($1, $2)', [a.organizationId, 'rolled back']);
      await tx.query('SELECT 1/0');
    });
    await expect(failing).rejects.toMatchObject({ code: '22012' });
    const rows = await runtime.db.inTenant(a, (tx) => tx.query(`SELECT body FROM tenancy_notes WHERE body = 'rolled back'`));
    expect(rows).toEqual([]);
    // Every pooled connection is idle, not left in a transaction (each would refuse the next BEGIN's settings otherwise).
    const [idle] = await runtime.db.asSystem((tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`),
    );
    expect(idle.n).toBe(0);
  });

  it('should keep a named statement that names its columns working after a migration adds one (one of `*` fails)', async () => {
    const a = await makeOrganization(runtime);
    await runtime.db.asSystem((tx) => tx.query(`CREATE TABLE tenancy_growing (id int PRIMARY KEY, label text)`));
    await runtime.db.asSystem((tx) => tx.query(`INSERT INTO tenancy_growing VALUES (1, 'one')`));
    await runtime.db.asSystem((tx) => tx.query(`GRANT SELECT ON tenancy_growing TO app_tenant`));
    const [listed, starred] = ['SELECT id, label FROM tenancy_growing WHERE id = $1', 'SELECT * FROM tenancy_growing WHERE id = $1'];
    const named = (sql: string) => runtime.db.inTenant(a, (tx) => tx.query(sql, [1], { prepare: true }));
    // More transactions at once than the pool has connections, each preparing both: every pooled
    // connection has both statements before the column arrives.
    await Promise.all(
      Array.from({ length: 30 }, () =>
        runtime.db.inTenant(a, async (tx) => {
          await tx.query(listed, [1], { prepare: true });
          await tx.query(starred, [1], { prepare: true });
        }),
      ),
    );
    await runtime.db.asSystem((tx) => tx.query(`ALTER TABLE tenancy_growing ADD COLUMN added text`));
    expect(await named(listed)).toEqual([{ id: 1, label: 'one' }]);
    await expect(named(starred)).rejects.toThrow(/cached plan must not change result type/);
  });

  it('should refuse a tenant transaction without a valid organization id', async () => {
    expect(() => runtime.db.inTenant({ organizationId: 'nope', userId: null, role: 'OWNER', requestId: randomUUID() }, async () => 1)).toThrow(
      /organization id/,
    );
  });

  it("should send the inbound worker's prepared statements unnamed (planned with their values), and name them elsewhere", async () => {
    const a = await makeOrganization(runtime);
    // A text of its own per purpose, so an earlier test's named statement cannot answer for it.
    const named = async (tx: Tx, purpose: string) => {
      const text = `SELECT 1 AS one, '${purpose}' AS purpose`;
      await tx.query(text, [], { prepare: true });
      const [row] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [text]);
      return row.n;
    };
    expect(await runtime.db.inTenant(a, (tx) => named(tx, 'inbound'), { purpose: 'inbound' })).toBe(0);
    expect(await runtime.db.inTenant(a, (tx) => named(tx, 'request'))).toBe(1);
    expect(await runtime.db.asSystem((tx) => named(tx, 'system'))).toBe(1);
    // The server's plan cache is left to choose for every purpose (triggers and foreign-key checks).
    const planCacheMode = (tx: Tx) => tx.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`);
    const [mode] = await runtime.db.inTenant(a, planCacheMode, { purpose: 'inbound' });
    expect(mode.mode).toBe('auto');
  });

  it("should keep each organization's recent request-transaction time for the gate, not its inbound or system work", async () => {
    const a = await makeOrganization(runtime);
    const b = await makeOrganization(runtime);
    await runtime.db.inTenant(a, (tx) => tx.query('SELECT pg_sleep(0.06)'));
    await runtime.db.inTenant(b, (tx) => tx.query('SELECT pg_sleep(0.06)'), { purpose: 'inbound' });
    await runtime.db.inTenant(a, () => Promise.reject(new Error('fails'))).catch(() => undefined);
    expect(runtime.db.load.recentMs(a.organizationId)).toBeGreaterThanOrEqual(40);
    expect(runtime.db.load.recentMs(b.organizationId)).toBe(0);
  });
});
