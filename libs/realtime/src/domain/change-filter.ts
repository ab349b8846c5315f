// A postgres_changes binding's `filter`: `column=op.value`, several joined by commas (all must
// hold), as realtime-js sends it. Checked once at join against the columns the caller may read, then
// matched in memory against each row the caller's read returned.

export type FilterOperator = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';
const OPERATORS: readonly FilterOperator[] = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in'];

// The data API's column types that compare as scalars; arrays and JSON are not filterable.
type Scalar = 'uuid' | 'text' | 'int' | 'numeric' | 'bool' | 'timestamptz' | 'date';
const SCALARS: readonly string[] = ['uuid', 'text', 'int', 'numeric', 'bool', 'timestamptz', 'date'];

export interface Condition {
  column: string;
  type: Scalar;
  operator: FilterOperator;
  values: readonly string[];
}

export class InvalidFilter extends Error {}

// Splits on commas outside double quotes and parentheses.
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"' && text[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && char === '(') depth++;
    else if (!quoted && char === ')') depth--;
    else if (!quoted && depth === 0 && char === ',') {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const unquote = (value: string): string =>
  value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\"/g, '"') : value;

export function parseFilter(filter: string, columns: ReadonlyMap<string, string>): Condition[] {
  if (filter.length > 2048) throw new InvalidFilter('filter is longer than 2048 characters');
  return splitTop(filter).map((term) => {
    const match = /^([a-z_][a-z0-9_]*)=([a-z]+)\.(.*)$/s.exec(term.trim());
    if (!match) throw new InvalidFilter(`filter "${term}" is not column=operator.value`);
    const [, column, operator, raw] = match;
    const type = columns.get(column);
    if (type === undefined) throw new InvalidFilter(`filter column "${column}" does not exist or is not readable`);
    if (!SCALARS.includes(type)) throw new InvalidFilter(`filter column "${column}" (${type}) cannot be filtered`);
    if (!(OPERATORS as readonly string[]).includes(operator)) {
      throw new InvalidFilter(`filter operator "${operator}" is not supported (supported: ${OPERATORS.join(', ')})`);
    }
    let values: string[];
    if (operator === 'in') {
      if (!raw.startsWith('(') || !raw.endsWith(')')) throw new InvalidFilter(`filter "${term}": in takes a list, in.(a,b)`);
      values = splitTop(raw.slice(1, -1)).map((value) => unquote(value.trim()));
      if (values.length > 100) throw new InvalidFilter(`filter "${term}": in takes at most 100 values`);
    } else {
      values = [unquote(raw)];
    }
    for (const value of values) if (comparable(type as Scalar, value) === undefined) throw new InvalidFilter(`filter "${term}": "${value}" is not a ${type}`);
    return { column, type: type as Scalar, operator: operator as FilterOperator, values };
  });
}

// A value as the column's type orders it; undefined when it is not one.
function comparable(type: Scalar, value: unknown): string | number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) return undefined;
  switch (type) {
    case 'uuid':
      return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text) ? text.toLowerCase() : undefined;
    case 'int':
    case 'numeric': {
      const number = text.trim() === '' ? NaN : Number(text);
      return Number.isFinite(number) ? number : undefined;
    }
    case 'bool':
      return ['true', 't'].includes(text.toLowerCase()) ? 1 : ['false', 'f'].includes(text.toLowerCase()) ? 0 : undefined;
    case 'timestamptz':
    case 'date': {
      const time = Date.parse(text);
      return Number.isNaN(time) ? undefined : time;
    }
    case 'text':
      return text;
  }
}

function holds(condition: Condition, cell: unknown): boolean {
  const left = comparable(condition.type, cell);
  // As in SQL: a NULL (or unreadable) cell satisfies no comparison.
  if (left === undefined) return false;
  const rights = condition.values.map((value) => comparable(condition.type, value));
  const [right] = rights;
  switch (condition.operator) {
    case 'eq':
      return left === right;
    case 'neq':
      return left !== right;
    case 'in':
      return rights.includes(left);
    case 'lt':
      return right !== undefined && left < right;
    case 'lte':
      return right !== undefined && left <= right;
    case 'gt':
      return right !== undefined && left > right;
    case 'gte':
      return right !== undefined && left >= right;
  }
}

export function matchesFilter(conditions: readonly Condition[], row: Readonly<Record<string, unknown>>): boolean {
  return conditions.every((condition) => holds(condition, row[condition.column]));
}
