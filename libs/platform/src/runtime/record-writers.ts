import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '../database/database';

// How a context writes one of its tables, so writes through the data API run the same validation,
// normalisation, rules and events as the context's own endpoints, in the caller's transaction.
export interface RecordWriter {
  create(tx: Tx, ctx: RequestContext, body: Record<string, unknown>): Promise<object>;
  update(tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>): Promise<object>;
  remove(tx: Tx, ctx: RequestContext, id: string): Promise<void>;
  // Optional: create a row with the id the caller chose (an upsert on `id` that matched no row, as
  // PostgREST inserts it). Without it such an upsert is refused: ids are otherwise the service's.
  createWithId?(tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>): Promise<object>;
}

// Contexts register their writers while modules initialise; the data API looks them up by table.
@Injectable()
export class RecordWriters {
  private readonly writers = new Map<string, RecordWriter>();

  register(table: string, writer: RecordWriter): void {
    if (this.writers.has(table)) throw new Error(`a record writer for table "${table}" is registered twice`);
    this.writers.set(table, writer);
  }

  get(table: string): RecordWriter | undefined {
    return this.writers.get(table);
  }
}
