import { invalidValue, pgrstError, PLUS_HINT } from '../errors';
import type { ValueType } from './plan';

const malformedArray = (raw: string, hint?: string) => pgrstError('22P02', 400, `malformed array literal: "${raw}"`, undefined, hint);

// A PostgreSQL array literal `{a,"b c",NULL}` (one dimension), read as PostgreSQL reads it.
export function parseArrayLiteral(raw: string): (string | null)[] {
  const text = raw.trim();
  if (!text.startsWith('{') || !text.endsWith('}')) throw malformedArray(raw);
  const body = text.slice(1, -1);
  if (body.trim() === '') return [];
  const items: (string | null)[] = [];
  let i = 0;
  for (;;) {
    while (body[i] === ' ') i++;
    let item = '';
    let quoted = false;
    if (body[i] === '"') {
      quoted = true;
      for (i++; i < body.length && body[i] !== '"'; i++) item += body[i] === '\\' ? (body[++i] ?? '') : body[i];
      if (body[i] !== '"') throw malformedArray(raw);
      i++;
      while (body[i] === ' ') i++;
    } else {
      for (; i < body.length && body[i] !== ','; i++) {
        if ('{}"'.includes(body[i])) throw malformedArray(raw);
        item += body[i] === '\\' ? (body[++i] ?? '') : body[i];
      }
      item = item.trim();
      if (item === '') throw malformedArray(raw);
    }
    items.push(!quoted && item.toUpperCase() === 'NULL' ? null : item);
    if (i >= body.length) return items;
    if (body[i] !== ',') throw malformedArray(raw);
    i++;
  }
}

// An `in` list `(a,b,"c,d")`: items are taken as written, quotes optional, no trimming.
export function parseInList(raw: string, fail: () => never): string[] {
  const text = raw.trim();
  if (!text.startsWith('(') || !text.endsWith(')')) fail();
  const body = text.slice(1, -1);
  if (body === '') return [];
  const items: string[] = [];
  let i = 0;
  for (;;) {
    let item = '';
    if (body[i] === '"') {
      for (i++; i < body.length && body[i] !== '"'; i++) item += body[i] === '\\' && '"\\'.includes(body[i + 1]) ? body[++i] : body[i];
      if (body[i] !== '"') fail();
      i++;
    } else {
      for (; i < body.length && body[i] !== ','; i++) item += body[i];
    }
    items.push(item);
    if (i >= body.length) return items;
    if (body[i] !== ',') fail();
    i++;
  }
}

// §7: `+201001234567` sent raw arrives as ` 201001234567`; say so instead of matching nothing.
// Checked on the raw text, because PostgreSQL trims unquoted array items.
export function refusePlusAsSpace(raw: string, hadPlus: boolean): void {
  if (!hadPlus) return;
  const suspect = /(?:^|[{(,])\s*"?( \d[^,)}"]*)/.exec(raw);
  if (!suspect) return;
  throw pgrstError(
    '22P02',
    400,
    `malformed array literal: "${raw}"`,
    `The item "${suspect[1]}" starts with a space where the query string had a "+"`,
    PLUS_HINT,
  );
}

export const TYPE_NAME: Record<ValueType, string> = {
  uuid: 'uuid',
  text: 'text',
  'text[]': 'text[]',
  int: 'integer',
  numeric: 'numeric',
  bool: 'boolean',
  jsonb: 'json',
  timestamptz: 'timestamp with time zone',
  date: 'date',
};

const UUID = /^\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;
const INTEGER = /^\s*[+-]?\d{1,19}\s*$/;
const INT8_MAX = 9223372036854775807n;
const NUMERIC = /^\s*([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|NaN|[+-]?Infinity)\s*$/i;
const BOOLEAN = /^\s*(t|tr|tru|true|y|ye|yes|on|1|f|fa|fal|fals|false|n|no|of|off|0)\s*$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const validDate = (text: string): boolean => {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

function fits(type: ValueType, value: string): boolean {
  switch (type) {
    case 'text':
      return true;
    case 'uuid':
      return UUID.test(value);
    case 'int':
      return INTEGER.test(value) && BigInt(value.trim()) <= INT8_MAX && BigInt(value.trim()) >= -INT8_MAX - 1n;
    case 'numeric':
      return NUMERIC.test(value);
    case 'bool':
      return BOOLEAN.test(value);
    case 'date':
      return /^[+-]?infinity$/i.test(value) || validDate(value.trim());
    case 'timestamptz': {
      if (/^\s*([+-]?infinity|now|today)\s*$/i.test(value)) return true;
      const match = TIMESTAMP.exec(value.trim());
      return !!match && validDate(match[1]) && Number(match[2] ?? 0) < 24 && Number(match[3] ?? 0) < 60 && Number(match[4] ?? 0) < 61;
    }
    case 'jsonb':
      try {
        JSON.parse(value);
        return true;
      } catch {
        return false;
      }
    case 'text[]':
      parseArrayLiteral(value);
      return true;
  }
}

// PostgREST leaves this to PostgreSQL (22P02); checking here gives the same answer before any SQL runs.
export function checkValue(type: ValueType, value: string, hadPlus = false): void {
  if (fits(type, value)) return;
  throw invalidValue(TYPE_NAME[type], value, hadPlus && value.includes(' ') ? PLUS_HINT : undefined);
}
