import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '../database/database';
import type { ExposedTable, RecordWriter } from './exposed-table';

class ThingsWriter implements RecordWriter {
  create = async (_tx: Tx, _ctx: RequestContext, body: Record<string, unknown>) => body;
  update = async (_tx: Tx, _ctx: RequestContext, id: string) => ({ id });
  remove = async () => undefined;
}

const writable = { name: 'things', columns: { id: 'uuid' }, readable: ['id'], writable: true } as const;
const readOnly = { name: 'thing_logs', columns: { id: 'uuid' }, readable: ['id'] } as const;

// The binding is checked by the compiler (npm run typecheck): these lines must not compile.
// @ts-expect-error a writable table without its writer
const withoutWriter: ExposedTable = { table: writable };
// @ts-expect-error a writer for a table that is not writable
const strayWriter: ExposedTable = { table: readOnly, writer: ThingsWriter };

describe('a table bound to its writer', () => {
  it('should accept a writable table with its writer and a read-only table without one', () => {
    const tables: ExposedTable[] = [{ table: writable, writer: ThingsWriter }, { table: readOnly }];
    expect(tables.map((exposed) => exposed.writer?.name ?? null)).toEqual(['ThingsWriter', null]);
    expect([withoutWriter, strayWriter].map((exposed) => exposed.table.name)).toEqual(['things', 'thing_logs']);
  });
});
