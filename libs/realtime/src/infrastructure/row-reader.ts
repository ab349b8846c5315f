import { executeRead, type Registry, registryFor } from '@engage/data-api';
import type { Database } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import type { ReadableColumns } from '../domain/binding';

// Rows are read as /rest/v1 reads them: through the data API's engine, in the reader's own tenant
// transaction (row-level security decides which exist), with the columns the reader's role may
// read, shaped as /rest/v1 answers them. A row the reader may not see is simply not returned.
export class RowReader {
  constructor(
    private readonly db: Database,
    private readonly registry: Registry,
    private readonly maxResponseBytes: number,
  ) {}

  // The columns a caller of `role` reads of `table`, with their types; undefined for a table the data API does not serve.
  readableColumns(table: string, role: string): ReadableColumns | undefined {
    const definition = registryFor(this.registry, role).tables.get(table);
    if (!definition) return undefined;
    return new Map(definition.readable.map((column) => [column, definition.columns[column]] as const));
  }

  async read(ctx: RequestContext, table: string, ids: readonly string[]): Promise<Record<string, unknown>[]> {
    const registry = registryFor(this.registry, ctx.role);
    const response = await this.db.inTenant(
      ctx,
      (tx) => executeRead(tx, registry, { method: 'GET', table, query: '', headers: {}, ids: [...ids] }, { maxResponseBytes: this.maxResponseBytes }),
      { readOnly: true },
    );
    return JSON.parse(response.body) as Record<string, unknown>[];
  }
}
