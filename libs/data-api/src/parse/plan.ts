import type { ColumnType, Relation } from '../registry';

export type Operator =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'like'
  | 'ilike'
  | 'match'
  | 'imatch'
  | 'in'
  | 'is'
  | 'isdistinct'
  | 'fts'
  | 'plfts'
  | 'phfts'
  | 'wfts'
  | 'cs'
  | 'cd'
  | 'ov';

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

// `rel.is.null` / `rel.not.is.null` inside an `or=`/`and=` tree: whether the embed (after its own
// filters) has a row.
export interface Presence {
  kind: 'presence';
  embed: Embed;
  negated: boolean;
  value: 'null' | 'not_null';
}

export type Filter = Condition | Logic | Presence;

export interface ColumnItem {
  field: FieldPath;
  cast?: string;
  // The key in the response object: the alias, else the last JSON key, else the column.
  key: string;
}

// An embedded resource: the referenced row (to-one: an object or null), or the related rows
// (one-to-many, many-to-many: an array), each shaped by its own select, filters and paging.
export interface Embed {
  // The relation as written (table, FK column or FK name) and its alias: filters may use either.
  name: string;
  alias?: string;
  // The embedded table and the path to it, all taken from the registry.
  table: string;
  relation: Relation;
  inner: boolean;
  select: SelectItem[];
  // `...rel(cols)` (to-one): its columns appear in the parent object, no key of its own.
  spread?: boolean;
  // `rel(count)` on a to-many embed: `[{"count": n}]` instead of the rows.
  countOnly?: boolean;
  // `rel.col=...` filters: they null the embed (or empty the array), or (with !inner) drop the parent row.
  filters: Filter[];
  // `rel=is.null` (anti-join) or `rel=not.is.null` (as !inner) on the parent.
  presence?: 'null' | 'not_null';
  // `rel.order=`, `rel.limit=`, `rel.offset=` (to-many only).
  order: OrderTerm[];
  limit?: number;
  offset?: number;
}

export interface EmbedItem {
  // The alias, else the relation name.
  key: string;
  embed: Embed;
}

export type SelectItem = ColumnItem | EmbedItem;

export const isEmbed = (item: SelectItem): item is EmbedItem => 'embed' in item;

// What an item contributes to the response: `rel()` nothing (it only filters), a spread its own items.
export const isShown = (item: SelectItem): boolean => !isEmbed(item) || item.embed.select.length > 0 || !!item.embed.countOnly;

// The keys of the response objects (the CSV header), spreads flattened.
export const outputKeys = (items: SelectItem[]): string[] =>
  items.filter(isShown).flatMap((item) => (isEmbed(item) && item.embed.spread ? outputKeys(item.embed.select) : [item.key]));

export interface OrderTerm {
  field: FieldPath;
  // `order=rel(col)`: the field is a column of this to-one embed.
  embed?: Embed;
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
  // `nulls=stripped` in the Accept type: null-valued keys are left out.
  stripNulls?: boolean;
  // Internal (writes): only these rows, in this order unless `order=` says otherwise.
  ids?: string[];
  // The type of the table's `id` column, so `ids` are compared in it (an index on id serves them).
  idType?: string;
}

export interface ReadRequest {
  method: string;
  table: string;
  // The raw query string (with or without the leading `?`), still percent-encoded.
  query: string;
  headers: Record<string, string | string[] | undefined>;
  // Internal, never from the query string: the rows a write touched, to answer them shaped by `select=`.
  ids?: string[];
  // The most rows of the top level and of each embedded array (a larger `limit` is cut); none for writes.
  maxRows?: number;
}
