import type { ColumnType } from '../registry';

export type Operator =
  | 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte'
  | 'like' | 'ilike' | 'match' | 'imatch'
  | 'in' | 'is' | 'isdistinct'
  | 'fts' | 'plfts' | 'phfts' | 'wfts'
  | 'cs' | 'cd' | 'ov';

export interface JsonStep {
  arrow: '->' | '->>';
  key: string;
}

export interface FieldPath {
  column: string;
  jsonPath: JsonStep[];
}

// The type of the left-hand side once a JSON path is applied: `->>` gives text, `->` jsonb.
export type ValueType = ColumnType;

export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

export interface Condition {
  kind: 'condition';
  field: FieldPath;
  valueType: ValueType;
  negated: boolean;
  operator: Operator;
  quantifier?: 'any' | 'all';
  ftsConfig?: string;
  // A scalar, or the items of an `in` list, array literal or quantified `{...}` list.
  value: string | (string | null)[];
}

export interface Logic {
  kind: 'logic';
  operator: 'and' | 'or';
  negated: boolean;
  children: Filter[];
}

export type Filter = Condition | Logic;

export interface SelectItem {
  field: FieldPath;
  cast?: string;
  // The key in the response object: the alias, else the last JSON key, else the column.
  key: string;
}

export interface OrderTerm {
  field: FieldPath;
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export type MediaType = 'json' | 'object' | 'csv';
export type CountPreference = 'exact' | 'planned' | 'estimated';

export interface ReadPlan {
  table: string;
  method: 'GET' | 'HEAD';
  select: SelectItem[];
  filters: Filter[];
  order: OrderTerm[];
  offset: number;
  limit?: number;
  count?: CountPreference;
  media: MediaType;
}

export interface ReadRequest {
  method: string;
  table: string;
  // The raw query string (with or without the leading `?`), still percent-encoded.
  query: string;
  headers: Record<string, string | string[] | undefined>;
}
