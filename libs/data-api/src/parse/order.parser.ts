import { pgrstError } from '../errors';
import { findTable, type Registry, type TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { readField, resolveField } from './field.parser';
import type { Embed, OrderTerm } from './plan';

// `rel(col)`: order the parents by a column of a to-one embed of the select (PostgREST's related order).
function relatedOrder(cursor: Cursor, name: string, embeds: Embed[], registry: Registry | undefined): OrderTerm {
  const embed = embeds.find((candidate) => candidate.alias === name) ?? embeds.find((candidate) => candidate.name === name);
  if (!embed || !registry) {
    throw pgrstError(
      'PGRST108',
      400,
      `'${name}' is not an embedded resource in this request`,
      undefined,
      `Verify that '${name}' is included in the 'select' query parameter.`,
    );
  }
  if (embed.relation.kind !== 'one') {
    throw pgrstError(
      'PGRST118',
      400,
      `A related order on '${name}' is not possible`,
      `'${embed.relation.table}' and the ordered table do not form a many-to-one or one-to-one relationship`,
    );
  }
  cursor.expect('(');
  const field = readField(cursor, '.,()');
  cursor.expect(')');
  resolveField(findTable(registry, embed.table), field);
  return { field, embed };
}

// `order=a.desc.nullslast,b,meta->>k.asc,rel(col).desc`; garbage fails with PGRST100 as PostgREST's does.
export function parseOrder(table: TableDefinition, value: string | undefined, embeds: Embed[] = [], registry?: Registry): OrderTerm[] {
  if (value === undefined || value === '') return [];
  const cursor = new Cursor(value, 'order');
  const terms: OrderTerm[] = [];
  do {
    cursor.skipSpaces();
    const field = readField(cursor, '.,()');
    if (cursor.peek() === '(' && field.jsonPath.length) cursor.fail('"." or ","');
    const term: OrderTerm = cursor.peek() === '(' ? relatedOrder(cursor, field.column, embeds, registry) : { field };
    if (cursor.eat('.asc')) term.direction = 'asc';
    else if (cursor.eat('.desc')) term.direction = 'desc';
    if (cursor.eat('.nullsfirst')) term.nulls = 'first';
    else if (cursor.eat('.nullslast')) term.nulls = 'last';
    cursor.skipSpaces();
    if (!cursor.done && cursor.peek() !== ',') cursor.fail('".asc", ".desc", ".nullsfirst", ".nullslast" or ","');
    if (!term.embed) resolveField(table, term.field);
    terms.push(term);
  } while (cursor.eat(','));
  return terms;
}
