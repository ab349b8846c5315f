import { ValidationFailed } from '@engage/shared-kernel';
import { type DateParam, parseDateParam } from './report-query';

// What a dashboard widget shows (§2 Dashboard widget): a built-in figure, or a custom aggregation
// over one of the widget tables with the data API's filter grammar. Plain rules, no SQL here.

export const BUILT_IN_WIDGETS = ['incoming_messages', 'open_conversations', 'response_time', 'sla', 'pipeline_value', 'deals_won', 'new_contacts'] as const;
export const WIDGET_TYPES = [...BUILT_IN_WIDGETS, 'custom'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];
export const AGGREGATIONS = ['Count', 'Sum', 'Average', 'Min', 'Max'] as const;
export const FORMATS = ['Number', 'Currency', 'Percentage', 'Time Duration'] as const;
export const DATE_RANGES = ['Today', 'Yesterday', 'This Week', 'This Month', 'Custom Range'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];
export type DateRange = (typeof DATE_RANGES)[number];

export interface WidgetConfig {
  title: string;
  table?: string;
  column?: string;
  date_column?: string;
  query?: string;
  aggregation?: Aggregation;
  format: (typeof FORMATS)[number];
  date_range: DateRange;
  start_date?: string;
  end_date?: string;
}

// The tables a custom widget may read, by the name its config uses, as one member sees them: columns
// and which of them are numbers (Sum, Average, Min, Max) or times (date_column). The caller builds them
// (from the data API's columns); the shape is defined here so validation is pure.
export interface WidgetSourceShape {
  columns: readonly string[];
  numeric: readonly string[];
  times: readonly string[];
  defaultTime: string;
}

const KEYS = new Set(['title', 'table', 'column', 'date_column', 'query', 'aggregation', 'format', 'date_range', 'start_date', 'end_date']);
const CUSTOM_ONLY = ['table', 'column', 'date_column', 'aggregation'];
const MAX_QUERY = 2000;
// Parameters of the data API that shape a response rather than filter rows.
const NOT_FILTERS = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);

const bad = (field: string, message: string) => ValidationFailed('widget.invalid_config', `${field}: ${message}`, { field });
// A value as a message quotes it (JSON), or a key as it names it: at most 60 characters of it.
const cut = (text: string): string => (text.length > 60 ? `${text.slice(0, 57)}...` : text);
const shown = (value: unknown): string => cut(JSON.stringify(value ?? null) ?? String(value));
// PostgreSQL text (and jsonb) cannot hold a NUL character: refused where it is written, by name.
const NUL = '\u0000';

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], fallback?: T): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw bad(field, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function isWidgetType(value: unknown): value is WidgetType {
  return typeof value === 'string' && (WIDGET_TYPES as readonly string[]).includes(value);
}

// Checks the shape; the query's filters are checked against the source by the caller (data API parser).
export function parseWidgetConfig(type: WidgetType, raw: unknown, sources: Readonly<Record<string, WidgetSourceShape>>): WidgetConfig {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw bad('widget_config', 'must be an object');
  const input = raw as Record<string, unknown>;
  const unknown = Object.keys(input).find((key) => !KEYS.has(key));
  if (unknown) throw bad(`widget_config.${cut(unknown)}`, `unknown key; known: ${[...KEYS].join(', ')}`);
  const withNul = Object.keys(input).find((key) => typeof input[key] === 'string' && (input[key] as string).includes(NUL));
  if (withNul) throw bad(`widget_config.${withNul}`, 'contains a NUL character (\\u0000), which cannot be stored');
  if (type !== 'custom') {
    const chosen = CUSTOM_ONLY.find((key) => input[key] !== undefined);
    if (chosen) throw bad(`widget_config.${chosen}`, 'only custom widgets choose table, column, date_column and aggregation');
  }
  const title = input.title ?? defaultTitle(type);
  if (typeof title !== 'string' || title.trim().length === 0 || title.length > 100) throw bad('widget_config.title', 'must be 1 to 100 characters');
  const config: WidgetConfig = {
    title: title.trim(),
    format: oneOf('widget_config.format', input.format, FORMATS, DEFAULT_FORMAT[type]),
    date_range: oneOf('widget_config.date_range', input.date_range, DATE_RANGES, 'This Month'),
  };
  if (input.query !== undefined && input.query !== '') config.query = checkQuery(input.query);
  if (config.date_range === 'Custom Range') {
    const start = requiredDate('widget_config.start_date', input.start_date);
    const end = requiredDate('widget_config.end_date', input.end_date);
    Object.assign(config, { start_date: start.value, end_date: end.value });
  } else if (input.start_date !== undefined || input.end_date !== undefined) {
    throw bad('widget_config.start_date', 'start_date and end_date go with date_range Custom Range');
  }
  if (type === 'custom') Object.assign(config, customParts(input, sources));
  return config;
}

function customParts(input: Record<string, unknown>, sources: Readonly<Record<string, WidgetSourceShape>>) {
  if (typeof input.table !== 'string' || !Object.hasOwn(sources, input.table)) {
    throw bad('widget_config.table', `${shown(input.table)} is not allowed; allowed: ${Object.keys(sources).join(', ')}`);
  }
  const source = sources[input.table];
  const aggregation = oneOf('widget_config.aggregation', input.aggregation, AGGREGATIONS, 'Count');
  const parts: Partial<WidgetConfig> = { table: input.table, aggregation };
  if (input.column !== undefined) {
    if (typeof input.column !== 'string' || !source.columns.includes(input.column)) {
      throw bad('widget_config.column', `${shown(input.column)} is not a column of ${input.table}`);
    }
    if (aggregation !== 'Count' && !source.numeric.includes(input.column)) {
      throw bad('widget_config.column', `${input.column} is not a number; ${aggregation} needs one of ${source.numeric.join(', ') || 'none'}`);
    }
    parts.column = input.column;
  } else if (aggregation !== 'Count') {
    throw bad('widget_config.column', `${aggregation} needs a column`);
  }
  if (input.date_column !== undefined) {
    if (typeof input.date_column !== 'string' || !source.times.includes(input.date_column)) {
      throw bad('widget_config.date_column', `must be one of ${source.times.join(', ')}`);
    }
    parts.date_column = input.date_column;
  }
  return parts;
}

function checkQuery(query: unknown): string {
  if (typeof query !== 'string' || query.length > MAX_QUERY) throw bad('widget_config.query', `must be a filter string of at most ${MAX_QUERY} characters`);
  const text = query.startsWith('?') ? query.slice(1) : query;
  for (const [key, value] of new URLSearchParams(text)) {
    if (NOT_FILTERS.has(key)) throw bad('widget_config.query', `${key} is not a filter; only filters (column=op.value, or=(...), and=(...)) are allowed`);
    if (`${key}${value}`.includes(NUL)) {
      throw bad('widget_config.query', `${cut(key.replaceAll(NUL, '%00'))} holds a NUL byte (%00), which PostgreSQL text cannot hold`);
    }
  }
  return text;
}

function requiredDate(field: string, value: unknown): DateParam {
  if (typeof value !== 'string') throw bad(field, 'is required with date_range Custom Range (ISO 8601 date or timestamp)');
  try {
    return parseDateParam(field, value);
  } catch {
    throw bad(field, 'must be an ISO 8601 date (2026-01-31) or timestamp (2026-01-31T09:30:00Z)');
  }
}

const DEFAULT_FORMAT: Record<WidgetType, (typeof FORMATS)[number]> = {
  incoming_messages: 'Number',
  open_conversations: 'Number',
  response_time: 'Time Duration',
  sla: 'Percentage',
  pipeline_value: 'Currency',
  deals_won: 'Number',
  new_contacts: 'Number',
  custom: 'Number',
};

function defaultTitle(type: WidgetType): string {
  return type === 'custom'
    ? 'Custom'
    : type
        .replace(/_/g, ' ')
        .replace(/^./, (c) => c.toUpperCase())
        .replace('Sla', 'SLA');
}
