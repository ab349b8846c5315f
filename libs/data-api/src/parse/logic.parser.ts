import type { TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { readField } from './field.parser';
import { readOperation, toCondition } from './filter.parser';
import type { Filter, Logic } from './plan';

// `or=(a.eq.1,not.and(b.gt.2,c.is.null))`: any depth, whitespace allowed around parens and commas.
export function parseLogicParam(table: TableDefinition, operator: 'and' | 'or', negated: boolean, value: string, hadPlus: boolean): Logic {
  const cursor = new Cursor(value, 'logic tree');
  const children = readGroup(cursor, table, hadPlus);
  cursor.skipSpaces();
  if (!cursor.done) cursor.fail('end of input');
  return { kind: 'logic', operator, negated, children };
}

function readGroup(cursor: Cursor, table: TableDefinition, hadPlus: boolean): Filter[] {
  cursor.skipSpaces();
  cursor.expect('(');
  const children: Filter[] = [];
  do {
    children.push(readTree(cursor, table, hadPlus));
    cursor.skipSpaces();
  } while (cursor.eat(','));
  cursor.expect(')');
  return children;
}

function readTree(cursor: Cursor, table: TableDefinition, hadPlus: boolean): Filter {
  cursor.skipSpaces();
  const start = cursor.pos;
  const negated = cursor.eat('not.');
  for (const operator of ['and', 'or'] as const) {
    if (cursor.eat(`${operator}(`)) {
      cursor.pos--;
      return { kind: 'logic', operator, negated, children: readGroup(cursor, table, hadPlus) };
    }
  }
  cursor.pos = start;
  const field = readField(cursor, '.,()');
  cursor.expect('.');
  const operation = readOperation(cursor, true);
  const end = cursor.pos;
  return toCondition(table, field, operation, hadPlus, () => {
    cursor.pos = end;
    return cursor.fail('a valid value');
  });
}
