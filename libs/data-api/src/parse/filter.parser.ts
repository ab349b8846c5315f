import { pgrstError, undefinedOperator } from '../errors';
import type { TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { readField, resolveField } from './field.parser';
import type { Condition, FieldPath, Operator, ValueType } from './plan';
import { checkValue, parseArrayLiteral, parseInList, refusePlusAsSpace, TYPE_NAME } from './values';

const OPERATORS = new Set<string>([
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'in',
  'is',
  'isdistinct',
  'fts',
  'plfts',
  'phfts',
  'wfts',
  'cs',
  'cd',
  'ov',
]);
// Spec §4.5 names these for the record proxy.
const ALIASES: Record<string, Operator> = { contains: 'cs', containedBy: 'cd', overlaps: 'ov' };
const QUANTIFIABLE = new Set<Operator>(['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']);
const FULL_TEXT = new Set<Operator>(['fts', 'plfts', 'phfts', 'wfts']);
const TEXT_ONLY = new Set<Operator>(['like', 'ilike', 'match', 'imatch']);
const SQL_SYMBOL: Partial<Record<Operator, string>> = {
  like: '~~',
  ilike: '~~*',
  match: '~',
  imatch: '~*',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  fts: '@@',
  plfts: '@@',
  phfts: '@@',
  wfts: '@@',
};
const IS_VALUES = new Set(['null', 'not_null', 'true', 'false', 'unknown']);

export interface Operation {
  negated: boolean;
  operator: Operator;
  quantifier?: 'any' | 'all';
  ftsConfig?: string;
  value: string;
}

// `[not.]op[(any|all|config)].value`; inside a logic tree the value ends at `,` or `)` unless quoted.
export function readOperation(cursor: Cursor, inLogic: boolean): Operation {
  const negated = cursor.eat('not.');
  const name = cursor.readWhile((char) => /[a-zA-Z]/.test(char));
  const operator = ALIASES[name] ?? (OPERATORS.has(name) ? (name as Operator) : cursor.fail('an operator'));
  const operation: Operation = { negated, operator, value: '' };
  if (cursor.eat('(')) {
    const modifier = cursor.readWhile((char) => char !== ')' && char !== '.');
    if ((modifier === 'any' || modifier === 'all') && QUANTIFIABLE.has(operator)) operation.quantifier = modifier;
    else if (FULL_TEXT.has(operator) && /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(modifier)) operation.ftsConfig = modifier;
    else cursor.fail(FULL_TEXT.has(operator) ? 'a text search configuration' : '"any" or "all"');
    cursor.expect(')');
  }
  cursor.expect('.');
  operation.value = inLogic ? readLogicValue(cursor, operator) : cursor.rest();
  return operation;
}

function readLogicValue(cursor: Cursor, operator: Operator): string {
  if (operator === 'in') return readBalanced(cursor, '(', ')');
  if (cursor.peek() === '{') return readBalanced(cursor, '{', '}');
  if (cursor.peek() === '"') return cursor.readQuoted();
  return cursor.readWhile((char) => char !== ',' && char !== ')');
}

// The text from an opening to its closing bracket, skipping over double-quoted parts.
function readBalanced(cursor: Cursor, open: string, close: string): string {
  const start = cursor.pos;
  cursor.skipSpaces();
  cursor.expect(open);
  let quoted = false;
  while (!cursor.done && (quoted || cursor.peek() !== close)) {
    if (cursor.peek() === '\\' && quoted) cursor.pos++;
    else if (cursor.peek() === '"') quoted = !quoted;
    cursor.pos++;
  }
  cursor.expect(close);
  return cursor.input.slice(start, cursor.pos);
}

// Types the value against the column now, so that SQL only ever receives well-formed parameters.
export function toCondition(table: TableDefinition, field: FieldPath, operation: Operation, hadPlus: boolean, fail: () => never): Condition {
  const valueType = resolveField(table, field);
  const { operator, value } = operation;
  const condition: Condition = { kind: 'condition', field, valueType, ...operation };
  const refuse = (): never => {
    throw undefinedOperator(TYPE_NAME[valueType], SQL_SYMBOL[operator] ?? operator);
  };
  if (operator === 'is') {
    if (!IS_VALUES.has(value.toLowerCase())) fail();
    condition.value = value.toLowerCase();
  } else if (operator === 'in') {
    if (valueType === 'text[]' || valueType === 'jsonb') refuse();
    refusePlusAsSpace(value, hadPlus);
    const items = parseInList(value, fail);
    items.forEach((item) => checkValue(valueType, item, hadPlus));
    condition.value = items;
  } else if (operation.quantifier) {
    if (valueType === 'text[]' || valueType === 'jsonb' || (TEXT_ONLY.has(operator) && valueType !== 'text')) refuse();
    refusePlusAsSpace(value, hadPlus);
    const items = parseArrayLiteral(value);
    items.forEach((item) => item !== null && checkValue(valueType, item, hadPlus));
    condition.value = operator === 'like' || operator === 'ilike' ? items.map((item) => item?.replace(/\*/g, '%') ?? null) : items;
  } else if (TEXT_ONLY.has(operator)) {
    if (valueType !== 'text') refuse();
    condition.value = operator === 'like' || operator === 'ilike' ? value.replace(/\*/g, '%') : value;
  } else if (FULL_TEXT.has(operator)) {
    if (valueType !== 'text' && valueType !== 'jsonb') refuse();
  } else if (operator === 'cs' || operator === 'cd' || operator === 'ov') {
    condition.value = containmentValue(valueType, operator, value, hadPlus, refuse);
  } else {
    condition.value = comparable(valueType, value, hadPlus);
  }
  return condition;
}

function containmentValue(type: ValueType, operator: Operator, value: string, hadPlus: boolean, refuse: () => never): Condition['value'] {
  if (type === 'text[]') {
    refusePlusAsSpace(value, hadPlus);
    const items = parseArrayLiteral(value);
    return items;
  }
  if (type === 'jsonb' && operator !== 'ov') {
    checkValue('jsonb', value);
    return value;
  }
  return refuse();
}

function comparable(type: ValueType, value: string, hadPlus: boolean): Condition['value'] {
  if (type !== 'text[]') {
    checkValue(type, value, hadPlus);
    return value;
  }
  refusePlusAsSpace(value, hadPlus);
  const items = parseArrayLiteral(value);
  return items;
}

// A top-level `key=value` filter; a dotted key would name an embedded resource, which reads do not have yet.
export function parseFilterParam(table: TableDefinition, key: string, value: string, hadPlus: boolean): Condition {
  if (!key.startsWith('"') && key.includes('.')) {
    const resource = key.split('.')[0];
    throw pgrstError(
      'PGRST108',
      400,
      `'${resource}' is not an embedded resource in this request`,
      undefined,
      `Verify that '${resource}' is included in the 'select' query parameter.`,
    );
  }
  const field = readField(new Cursor(key, 'filter'), '');
  const cursor = new Cursor(value, 'filter');
  const operation = readOperation(cursor, false);
  return toCondition(table, field, operation, hadPlus, () => cursor.fail('a valid value'));
}
