import { createHash } from 'node:crypto';
import { type DomainEvent, type EventCause, isUuid, type RequestContext } from '@engage/shared-kernel';
import type { Pool, PoolClient } from 'pg';
import { OutboxSignal } from '../events/outbox-signal';
import { insertOutboxEvents } from '../events/outbox.sql';
import { translateViolation, type ViolationMap } from './constraint-violation';
import { asDatabaseFailure } from './database-failure';
import { Reachability } from './reachability';
import { GuardedClient } from './guarded-client';
import { TenantLoad } from './tenant-load';

// The one way code touches tenant data: a transaction that runs as app_tenant with app.org_id set,
// so row-level security stands behind every statement, raw SQL included.
export interface Tx {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<R[]>;
  // For statements without RETURNING: how many rows they changed.
  execute(sql: string, params?: unknown[], options?: QueryOptions): Promise<number>;
  // Writes events to the outbox inside this transaction: they exist only if the change commits.
  emit(events: DomainEvent[]): Promise<void>;
}

export interface QueryOptions {
  // A named statement: parsed once per pooled connection, and PostgreSQL keeps its plan when a
  // generic one will do. Only for fixed SQL texts (the hot paths' constants): each distinct text
  // stays prepared on every connection that ran it. Its result columns are named, never `*`
  // (rowList): a named statement fails once a migration adds a column to what it returns.
  prepare?: boolean;
  // Integrity violations this statement can cause, mapped to the domain errors they mean (by
  // constraint name, or by kind). Unmapped ones throw a ConstraintViolationError.
  violations?: ViolationMap;
}

const TENANT_ROLE = 'app_tenant';
// The statement timeout and work_mem bound what one request's statements may cost the database
// (transaction-local, set in the same round trip).
const SET_TENANT_SETTINGS = `SELECT set_config('role', $1, true), set_config('app.org_id', $2, true), set_config('app.user_id', $3, true),
                set_config('app.role', $4, true), set_config('app.request_id', $5, true),
                set_config('statement_timeout', $6, true), set_config('work_mem', $7, true), set_config('app.plan_limits', $8, true)`;
const SET_TENANT = `${SET_TENANT_SETTINGS},
                set_config('transaction_read_only', CASE WHEN $9 AND organization_writes_blocked($2::uuid) THEN 'on' ELSE 'off' END, true)`;
// A read needs no subscription look-up: its transaction is read-only whatever the plan says.
const SET_TENANT_READ_ONLY = `${SET_TENANT_SETTINGS}, set_config('transaction_read_only', 'on', true)`;

// What a tenant transaction is for, where plan rules treat writes differently (docs/plan-limits.md).
// 'inbound': a customer's message is never lost to a plan: writes past a plan limit are kept and the
// organization flagged over its limit, and an ended subscription does not make them read-only. Its
// own statements (the worker's batches) are sent unnamed, so each is planned with its values, never
// from a cached generic plan: one cached while messages was small (a new installation) probed it by
// sequential scan, and kept doing so as it grew, until an ANALYZE invalidated it (20 s of backlog per
// 10,000 messages). Only those: the triggers and foreign-key checks they fire keep their cached plans
// (planning those again for every row took more than a third of the batches' database time).
// 'billing': the organization's billing goes on while its subscription has ended.
// readOnly: the work only reads (the data API's GET and HEAD, as PostgREST runs them); PostgreSQL
// refuses any write in it.
export interface TenantOptions {
  purpose?: 'request' | 'inbound' | 'billing';
  readOnly?: boolean;
  // The rule run whose action this work is: every event it emits without a cause of its own
  // carries this one (automation's loop guard; docs/events.md).
  cause?: EventCause;
}

export interface TenantLimits {
  statementTimeoutMs: number;
  workMemKb: number;
}

// PostgreSQL's own defaults would be no timeout and 4 MB.
export const DEFAULT_TENANT_LIMITS: TenantLimits = { statementTimeoutMs: 8000, workMemKb: 4096 };

// What a Database runs on: the platform's pg pool (createPool), which the Database owns and ends on
// close(). TypeORM's data source runs the migrations only (the runtime's dataSource).
export interface DatabaseConnections {
  pool: Pool;
}

type PgResult = { rows: unknown[]; rowCount: number | null };

interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<PgResult | PgResult[]>;
}

// A connection of its own, outside the pool, for a session held open for the process's life.
export interface DedicatedSession {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification' | 'error' | 'end', handler: () => void): unknown;
  removeAllListeners(event: string): unknown;
}

const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `engage_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

// On a pg client directly; what fails is a DatabaseFailure (database-failure.ts), which carries the
// statement's text but never its parameters. A text of several statements (only without
// parameters) answers the last statement's result.
async function pgQuery(client: PgClient, sql: string, params: unknown[] | undefined, prepare: boolean | undefined): Promise<PgResult> {
  try {
    const result = await client.query({ ...(prepare ? { name: statementName(sql) } : {}), text: sql, values: params ?? [] });
    return Array.isArray(result) ? result[result.length - 1] : result;
  } catch (error) {
    throw asDatabaseFailure(error, sql);
  }
}

// named: a `prepare` statement is a named one. unnamed: planned with its values at every execution.
type Statements = 'named' | 'unnamed';

async function runStatement(
  client: PgClient,
  sql: string,
  params: unknown[] | undefined,
  options: QueryOptions | undefined,
  statements: Statements = 'named',
): Promise<{ records: unknown[]; affected: number }> {
  try {
    const result = await pgQuery(client, sql, params, options?.prepare === true && statements === 'named');
    return { records: result.rows, affected: result.rowCount ?? 0 };
  } catch (error) {
    throw translateViolation(error, options?.violations);
  }
}

export class Database {
  private readonly pool: Pool;
  // Whether the database answers: a request meanwhile answers 503 (to-problem.ts), logged once a change.
  readonly reachability = new Reachability();

  constructor(
    connections: DatabaseConnections,
    private readonly signal: OutboxSignal = new OutboxSignal(),
    private readonly limits: TenantLimits = DEFAULT_TENANT_LIMITS,
    // Request transactions' durations per organization, read by the gate (docs/operations.md).
    readonly load: TenantLoad = new TenantLoad(),
  ) {
    this.pool = connections.pool;
  }

  // Ends the pool: idle connections close at once, lent ones when they come back. Dedicated sessions
  // (a LISTEN) are their owners' to close. Once closed, every call fails.
  async close(): Promise<void> {
    if (!this.pool.ending) await this.pool.end();
  }

  // An organization whose subscription ended (canceled or past due after its period) gets a
  // read-only transaction: PostgreSQL itself refuses every write, whichever path makes it.
  inTenant<T>(ctx: RequestContext, work: (tx: Tx) => Promise<T>, options: TenantOptions = {}): Promise<T> {
    if (!isUuid(ctx.organizationId)) throw new Error(`inTenant needs an organization id, got ${String(ctx.organizationId)}`);
    const purpose = options.purpose ?? 'request';
    const done = purpose === 'request' ? this.timed(ctx.organizationId) : undefined;
    const running = this.run(
      work,
      async (client) => {
        const { statementTimeoutMs, workMemKb } = this.limits;
        const values = [
          TENANT_ROLE,
          ctx.organizationId,
          ctx.userId ?? '',
          ctx.role,
          ctx.requestId,
          String(statementTimeoutMs),
          String(workMemKb),
          purpose === 'inbound' ? 'record' : 'refuse',
        ];
        if (options.readOnly) await pgQuery(client, SET_TENANT_READ_ONLY, values, true);
        else await pgQuery(client, SET_TENANT, [...values, purpose === 'request'], true);
      },
      purpose === 'inbound' ? 'unnamed' : 'named',
      options.cause,
    );
    return done ? running.finally(done) : running;
  }

  private timed(organizationId: string): () => void {
    const started = performance.now();
    return () => this.load.record(organizationId, performance.now() - started);
  }

  // As app_tenant but with no organization: row-level security then shows and accepts nothing.
  withoutTenant<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run(work, async (client) => {
      await pgQuery(client, `SELECT set_config('role', $1, true)`, [TENANT_ROLE], false);
    });
  }

  // Cross-organization work of the platform itself (relays, schedulers, sign-up). Never for a request.
  asSystem<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run(work, async () => undefined);
  }

  // One statement as the system, without a transaction around it: for single reads and atomic
  // single-statement writes on hot paths (authentication, rate limits), one round trip instead of three.
  // A client whose session broke is not queryable, and the pool drops it when it comes back.
  async systemQuery<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<R[]> {
    const client = await this.pooled();
    try {
      const rows = (await pgQuery(client, sql, params, options?.prepare)).rows as R[];
      this.reachability.answered();
      return rows;
    } catch (error) {
      this.reachability.failed(error);
      throw translateViolation(error, options?.violations);
    } finally {
      client.release();
    }
  }

  // Opened with the pool's settings but not taken from it: a session held for the process's life
  // (the relay's LISTEN) must not shrink the pool the work shares (with DATABASE_POOL_SIZE=2 the
  // relay's batch held the other connection while its in-process consumers waited for one).
  async openDedicatedSession(): Promise<DedicatedSession> {
    if (this.pool.ending) throw asDatabaseFailure(new Error('the database is closed'));
    const client: DedicatedSession = new GuardedClient(this.pool.options);
    // An error before anyone listens (the session killed) must not end the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      const failure = asDatabaseFailure(error, undefined, true);
      this.reachability.failed(failure);
      throw failure;
    }
    return client;
  }

  async ping(): Promise<void> {
    await this.systemQuery('SELECT 1', [], { prepare: true });
  }

  // A client lent by the pool; its release, given an error, drops it from the pool instead of reusing it.
  private async pooled(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      const failure = asDatabaseFailure(error, undefined, true);
      this.reachability.failed(failure);
      throw failure;
    }
  }

  // setUp: what runs first in the transaction (the tenant's settings). statements: how the work's
  // `prepare` statements are sent (named: planned once per connection).
  private async run<T>(
    work: (tx: Tx) => Promise<T>,
    setUp: (client: PgClient) => Promise<void>,
    statements: Statements = 'named',
    cause?: EventCause,
  ): Promise<T> {
    const client = await this.pooled();
    let emitted = false;
    let broken: Error | undefined;
    try {
      await pgQuery(client, 'BEGIN', [], false);
      await setUp(client);
      const tx: Tx = {
        query: async <R>(sql: string, params?: unknown[], options?: QueryOptions) =>
          (await runStatement(client, sql, params, options, statements)).records as R[],
        execute: async (sql, params, options) => (await runStatement(client, sql, params, options, statements)).affected,
        emit: async (events) => {
          if (events.length === 0) return;
          const caused = cause ? events.map((event) => (event.cause ? event : { ...event, cause })) : events;
          await insertOutboxEvents({ query: (sql, params) => runStatement(client, sql, params, { prepare: true }) }, caused);
          emitted = true;
        },
      };
      const result = await work(tx);
      await pgQuery(client, 'COMMIT', [], false);
      this.reachability.answered();
      if (emitted) this.signal.written();
      return result;
    } catch (error) {
      this.reachability.failed(error);
      // After a failed COMMIT the server has already ended the transaction; ROLLBACK then only warns.
      await pgQuery(client, 'ROLLBACK', [], false).catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      // A client that could not roll back is dropped by the pool, never lent again mid-transaction.
      client.release(broken);
    }
  }
}
