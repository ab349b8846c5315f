import type { TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { readField, resolveField } from './field.parser';
import type { OrderTerm } from './plan';

// `order=a.desc.nullslast,b,meta->>k.asc`; garbage fails with PGRST100 as PostgREST's does.
export function parseOrder(table: TableDefinition, value: string | undefined): OrderTerm[] {
  if (value === undefined || value === '') return [];
  const cursor = new Cursor(value, 'order');
  const terms: OrderTerm[] = [];
  do {
    cursor.skipSpaces();
    const term: OrderTerm = { field: readField(cursor, '.,()') };
    if (cursor.peek() === '(') cursor.fail('"." or ","');
    if (cursor.eat('.asc')) term.direction = 'asc';
    else if (cursor.eat('.desc')) term.direction = 'desc';
    if (cursor.eat('.nullsfirst')) term.nulls = 'first';
    else if (cursor.eat('.nullslast')) term.nulls = 'last';
    cursor.skipSpaces();
    if (!cursor.done && cursor.peek() !== ',') cursor.fail('".asc", ".desc", ".nullsfirst", ".nullslast" or ","');
    resolveField(table, term.field);
    terms.push(term);
  } while (cursor.eat(','));
  return terms;
}
