import { LogicBudget } from '../limits';
import type { TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { readField } from './field.parser';
import { readOperation, toCondition } from './filter.parser';
import type { Embed, Filter, Logic } from './plan';

// `or=(a.eq.1,not.and(b.gt.2,c.is.null),rel.not.is.null)`: up to SHAPE_LIMITS.logicDepth levels, whitespace allowed around
// parens and commas; `rel` is an embed of the select (`embeds`), tested for presence.
export function parseLogicParam(
  table: TableDefinition,
  operator: 'and' | 'or',
  negated: boolean,
  value: string,
  hadPlus: boolean,
  embeds: Embed[] = [],
): Logic {
  const cursor = new Cursor(value, 'logic tree');
  const children = readGroup(cursor, table, hadPlus, embeds, 1, new LogicBudget());
  cursor.skipSpaces();
  if (!cursor.done) cursor.fail('end of input');
  return { kind: 'logic', operator, negated, children };
}

function readGroup(cursor: Cursor, table: TableDefinition, hadPlus: boolean, embeds: Embed[], depth: number, budget: LogicBudget): Filter[] {
  LogicBudget.depth(depth);
  cursor.skipSpaces();
  cursor.expect('(');
  const children: Filter[] = [];
  do {
    children.push(readTree(cursor, table, hadPlus, embeds, depth, budget));
    cursor.skipSpaces();
  } while (cursor.eat(','));
  cursor.expect(')');
  return children;
}

const PRESENCE: [string, 'null' | 'not_null', boolean][] = [
  ['.is.null', 'null', false],
  ['.not.is.null', 'null', true],
  ['.is.not_null', 'not_null', false],
];

function readTree(cursor: Cursor, table: TableDefinition, hadPlus: boolean, embeds: Embed[], depth: number, budget: LogicBudget): Filter {
  cursor.skipSpaces();
  const start = cursor.pos;
  const negated = cursor.eat('not.');
  for (const operator of ['and', 'or'] as const) {
    if (cursor.eat(`${operator}(`)) {
      cursor.pos--;
      return { kind: 'logic', operator, negated, children: readGroup(cursor, table, hadPlus, embeds, depth + 1, budget) };
    }
  }
  cursor.pos = start;
  budget.term();
  const field = readField(cursor, '.,()');
  const embed = field.jsonPath.length
    ? undefined
    : (embeds.find((candidate) => candidate.alias === field.column) ?? embeds.find((candidate) => candidate.name === field.column));
  for (const [text, value, not] of embed ? PRESENCE : []) {
    if (!cursor.input.startsWith(text, cursor.pos) || !/^[,)\s]?$/.test(cursor.input.charAt(cursor.pos + text.length))) continue;
    cursor.pos += text.length;
    return { kind: 'presence', embed: embed as Embed, negated: not, value };
  }
  cursor.expect('.');
  const operation = readOperation(cursor, true);
  const end = cursor.pos;
  return toCondition(table, field, operation, hadPlus, () => {
    cursor.pos = end;
    return cursor.fail('a valid value');
  });
}
