import { RecordWriters, type RecordWriter, type Tx } from '@engage/platform';
import { createEvent, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';

// A context's writer for the fixture table, as a real context would write it: a rule (a name is
// required and trimmed), the change, and an event in the same transaction.
const WRITABLE = ['name', 'qty', 'price', 'tags', 'meta', 'active', 'body'] as const;

const valueOf = (column: string, value: unknown) => (column === 'meta' ? JSON.stringify(value ?? {}) : value);

function checkName(body: Record<string, unknown>, required: boolean): void {
  if (!('name' in body) && !required) return;
  if (typeof body.name !== 'string' || body.name.trim() === '') throw ValidationFailed('item.name_required', 'An item needs a name');
  body.name = body.name.trim();
}

async function emit(tx: Tx, ctx: RequestContext, type: string, item: { id: string }): Promise<void> {
  await tx.emit([createEvent({ type, source: 'dataapi-test', organizationId: ctx.organizationId, aggregateId: item.id, payload: { item, actor_id: null } })]);
}

export const itemsWriter: RecordWriter = {
  async create(tx, ctx, input) {
    const body = { ...input };
    checkName(body, true);
    const columns = WRITABLE.filter((column) => column in body);
    const values = columns.map((column) => valueOf(column, body[column]));
    const [row] = await tx.query<{ id: string }>(
      `INSERT INTO dataapi_items (organization_id, ${columns.join(', ')}) VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING *`,
      [ctx.organizationId, ...values],
    );
    await emit(tx, ctx, 'item.created', row);
    return row;
  },
  async update(tx, ctx, id, input) {
    const body = { ...input };
    checkName(body, false);
    const columns = WRITABLE.filter((column) => column in body);
    const sets = columns.map((column, i) => `${column} = $${i + 2}`);
    const [row] = await tx.query<{ id: string }>(
      `UPDATE dataapi_items SET ${sets.length ? sets.join(', ') : 'name = name'} WHERE id = $1 RETURNING *`,
      [id, ...columns.map((column) => valueOf(column, body[column]))],
    );
    if (!row) throw NotFound('item', id);
    await emit(tx, ctx, 'item.updated', row);
    return row;
  },
  async remove(tx, ctx, id) {
    if ((await tx.execute('DELETE FROM dataapi_items WHERE id = $1', [id])) === 0) throw NotFound('item', id);
    await emit(tx, ctx, 'item.deleted', { id });
  },
};

export function itemsWriters(): RecordWriters {
  const writers = new RecordWriters();
  writers.register('dataapi_items', itemsWriter);
  return writers;
}
