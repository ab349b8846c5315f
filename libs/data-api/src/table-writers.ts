import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { ExposedTable, RecordWriter } from '@engage/platform';

// Looks a table's writer up by the table's name.
export interface WriterLookup {
  get(table: string): RecordWriter | undefined;
}

// The writers of the exposed tables, each the provider its table is bound to in the owning
// context's manifest, taken from that context's module once every module is up. A writer its
// context does not provide fails the start, naming the table.
@Injectable()
export class TableWriters implements WriterLookup, OnModuleInit {
  private readonly writers = new Map<string, RecordWriter>();

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly tables: readonly ExposedTable[],
  ) {}

  onModuleInit(): void {
    for (const { table, writer } of this.tables) {
      if (!writer) continue;
      try {
        this.writers.set(table.name, this.moduleRef.get(writer, { strict: false }));
      } catch (error) {
        throw new Error(`data-api: the writer of table ${table.name} (${writer.name}) is not provided by its context's module`, { cause: error });
      }
    }
  }

  get(table: string): RecordWriter | undefined {
    return this.writers.get(table);
  }
}
