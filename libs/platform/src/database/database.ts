import { type DomainEvent, isUuid, type RequestContext } from '@engage/shared-kernel';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { OutboxSignal } from '../events/outbox-signal';
import { insertOutboxEvents } from '../events/outbox.sql';

// The one way code touches tenant data: a transaction that runs as app_tenant with app.org_id set,
// so row-level security stands behind every statement, raw SQL included.
export interface Tx {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  // For statements without RETURNING: how many rows they changed.
  execute(sql: string, params?: unknown[]): Promise<number>;
  readonly manager: EntityManager;
  // Writes events to the outbox inside this transaction: they exist only if the change commits.
  emit(events: DomainEvent[]): Promise<void>;
}

const TENANT_ROLE = 'app_tenant';

export class Database {
  constructor(
    readonly dataSource: DataSource,
    private readonly signal: OutboxSignal = new OutboxSignal(),
  ) {}

  inTenant<T>(ctx: RequestContext, work: (tx: Tx) => Promise<T>): Promise<T> {
    if (!isUuid(ctx.organizationId)) throw new Error(`inTenant needs an organization id, got ${String(ctx.organizationId)}`);
    return this.run(work, async (runner) => {
      await runner.query(
        `SELECT set_config('role', $1, true), set_config('app.org_id', $2, true), set_config('app.user_id', $3, true),
                set_config('app.role', $4, true), set_config('app.request_id', $5, true)`,
        [TENANT_ROLE, ctx.organizationId, ctx.userId ?? '', ctx.role, ctx.requestId],
      );
    });
  }

  // As app_tenant but with no organization: row-level security then shows and accepts nothing.
  withoutTenant<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run(work, async (runner) => {
      await runner.query(`SELECT set_config('role', $1, true)`, [TENANT_ROLE]);
    });
  }

  // Cross-organization work of the platform itself (relays, schedulers, sign-up). Never for a request.
  asSystem<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run(work, async () => undefined);
  }

  // One statement as the system, without a transaction around it: for single reads and atomic
  // single-statement writes on hot paths (authentication, rate limits), one round trip instead of three.
  async systemQuery<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return (await runner.query(sql, params, true)).records;
    } finally {
      await runner.release();
    }
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  private async run<T>(work: (tx: Tx) => Promise<T>, prepare: (runner: QueryRunner) => Promise<void>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    let emitted = false;
    try {
      await runner.startTransaction();
      await prepare(runner);
      const tx: Tx = {
        query: async (sql, params) => (await runner.query(sql, params, true)).records,
        execute: async (sql, params) => (await runner.query(sql, params, true)).affected ?? 0,
        manager: runner.manager,
        emit: async (events) => {
          if (events.length === 0) return;
          await insertOutboxEvents(runner, events);
          emitted = true;
        },
      };
      const result = await work(tx);
      await runner.commitTransaction();
      if (emitted) this.signal.written();
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }
}
