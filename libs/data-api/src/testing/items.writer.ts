import type { RecordWriter, Tx } from '@engage/platform';
import type { WriterLookup } from '../table-writers';
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

async function insert(tx: Tx, ctx: RequestContext, input: Record<string, unknown>, id?: string): Promise<{ id: string }> {
  const body = { ...input };
  checkName(body, true);
  const columns = WRITABLE.filter((column) => column in body);
  const values = columns.map((column) => valueOf(column, body[column]));
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO dataapi_items (id, organization_id, ${columns.join(', ')}) VALUES (coalesce($1::uuid, gen_random_uuid()), $2, ${columns.map((_, i) => `$${i + 3}`).join(', ')}) RETURNING *`,
    [id ?? null, ctx.organizationId, ...values],
  );
  await emit(tx, ctx, 'item.created', row);
  return row;
}

export const itemsWriter: RecordWriter = {
  create: (tx, ctx, input) => insert(tx, ctx, input),
  async update(tx, ctx, id, input) {
    const body = { ...input };
    checkName(body, false);
    const columns = WRITABLE.filter((column) => column in body);
    const sets = columns.map((column, i) => `${column} = $${i + 2}`);
    const [row] = await tx.query<{ id: string }>(`UPDATE dataapi_items SET ${sets.length ? sets.join(', ') : 'name = name'} WHERE id = $1 RETURNING *`, [
      id,
      ...columns.map((column) => valueOf(column, body[column])),
    ]);
    if (!row) throw NotFound('item', id);
    await emit(tx, ctx, 'item.updated', row);
    return row;
  },
  async remove(tx, ctx, id) {
    if ((await tx.execute('DELETE FROM dataapi_items WHERE id = $1', [id])) === 0) throw NotFound('item', id);
    await emit(tx, ctx, 'item.deleted', { id });
  },
};

export function itemsWriters(): WriterLookup {
  return new Map([['dataapi_items', itemsWriter]]);
}

// The same table, with client-chosen ids on upsert (as PostgREST inserts them).
export function itemsWritersWithIds(): WriterLookup {
  const createWithId = (tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>) => insert(tx, ctx, input, id);
  return new Map([['dataapi_items', { ...itemsWriter, createWithId }]]);
}
