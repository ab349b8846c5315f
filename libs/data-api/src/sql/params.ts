import type { ValueType } from '../parse/plan';

// Values reach PostgreSQL only as $n parameters; this collects them in order.
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

// Parameters are sent as text and cast to the column's type; `int` is widened so large values
// compare instead of overflowing.
export const SQL_TYPE: Record<ValueType, string> = {
  uuid: 'uuid',
  text: 'text',
  'text[]': 'text[]',
  int: 'bigint',
  numeric: 'numeric',
  bool: 'boolean',
  jsonb: 'jsonb',
  timestamptz: 'timestamptz',
  date: 'date',
};
