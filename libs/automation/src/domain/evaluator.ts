import { conditionField, CUSTOM_FIELD_PREFIX, type FieldKind, type RecordKind } from './catalogue';
import { type Condition, type ConditionGroup, type ConditionItem, type ConditionValue, groupItems, isGroup } from './conditions';
import { patternFinds } from './regex';

// The records of a subject as they are now (each as /rest/v1 serves it), and the moment's facts.
export interface Snapshot {
  readonly message?: Record<string, unknown>;
  readonly conversation?: Record<string, unknown>;
  readonly contact?: Record<string, unknown>;
  readonly deal?: Record<string, unknown>;
  // A bot session's variables (`variables.<name>` in a bot's branch and texts).
  readonly variables?: Record<string, unknown>;
  readonly time: { readonly weekday: string; readonly in_business_hours: boolean };
}

export interface ConditionReport {
  path: string;
  field: string;
  operator: string;
  value: ConditionValue;
  actual: unknown;
  matched: boolean;
}

// A field's value in the snapshot; undefined when its record or the field is missing.
export function valueOf(snapshot: Snapshot, field: string): unknown {
  if (field.startsWith(CUSTOM_FIELD_PREFIX)) {
    const custom = snapshot.contact?.custom_fields;
    const key = field.slice(CUSTOM_FIELD_PREFIX.length);
    return custom && typeof custom === 'object' && Object.hasOwn(custom, key) ? (custom as Record<string, unknown>)[key] : undefined;
  }
  const dot = field.indexOf('.');
  const record = field.slice(0, dot);
  const name = field.slice(dot + 1);
  if (record === 'time') return snapshot.time[name as keyof Snapshot['time']];
  if (record === 'message' && name === 'channel_kind') return snapshot.message ? snapshot.conversation?.channel_kind : undefined;
  const row = snapshot[record as RecordKind];
  return row && Object.hasOwn(row, name) ? row[name] : undefined;
}

// Whether the conditions hold, with each condition's outcome (every condition is evaluated, so
// the report is whole; a group's outcome follows from its items).
export function evaluate(conditions: ConditionGroup, snapshot: Snapshot): { matched: boolean; conditions: ConditionReport[] } {
  const reports: ConditionReport[] = [];
  const matched = evaluateGroup(conditions, snapshot, 'conditions', reports);
  return { matched, conditions: reports };
}

function evaluateGroup(group: ConditionGroup, snapshot: Snapshot, path: string, reports: ConditionReport[]): boolean {
  const mode = 'all' in group ? 'all' : 'any';
  const outcomes = groupItems(group).map((item: ConditionItem, index) => {
    const at = `${path}.${mode}[${index}]`;
    if (isGroup(item)) return evaluateGroup(item, snapshot, at, reports);
    const actual = valueOf(snapshot, item.field);
    const matched = holds(item, actual);
    reports.push({ path: at, field: item.field, operator: item.operator, value: item.value ?? null, actual: actual ?? null, matched });
    return matched;
  });
  return mode === 'all' ? outcomes.every(Boolean) : outcomes.some(Boolean);
}

const fold = (text: string) => text.toLocaleLowerCase('en-US');
const isMissing = (value: unknown) => value === undefined || value === null;

// Empty: missing, a blank string, an empty list or object.
export function isEmpty(value: unknown): boolean {
  if (isMissing(value)) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value as object).length === 0;
  return false;
}

const asNumber = (value: unknown): number | undefined => {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : undefined;
};

// A scalar as text (strings, numbers, booleans); undefined for anything else.
const asText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

// A list value's items as text; a single scalar counts as a list of one (a custom field).
const asList = (value: unknown): string[] | undefined => {
  if (Array.isArray(value)) return value.map(asText).filter((item): item is string => item !== undefined);
  const text = asText(value);
  return text === undefined ? undefined : [text];
};

// Free text and custom fields compare without regard to case; enums, keys and ids exactly.
function sameValue(actual: unknown, expected: string | number | boolean, kind: FieldKind): boolean {
  if (isMissing(actual)) return false;
  if (typeof expected === 'number') return asNumber(actual) === expected;
  if (typeof expected === 'boolean') return actual === expected;
  const text = asText(actual);
  if (text === undefined) return false;
  if (kind === 'id') return text.toLowerCase() === expected.toLowerCase();
  return kind === 'text' || kind === 'any' ? fold(text) === fold(expected) : text === expected;
}

function contains(actual: unknown, expected: string, kind: FieldKind): boolean {
  if (kind === 'list' || Array.isArray(actual)) return (asList(actual) ?? []).some((item) => fold(item) === fold(expected));
  const text = asText(actual);
  return text !== undefined && fold(text).includes(fold(expected));
}

// One condition on the actual value. Negations (not_equals, not_contains, not_in) hold on a missing
// value; every other comparison fails on one.
export function holds(condition: Condition, actual: unknown): boolean {
  const kind = conditionField(condition.field)?.kind ?? 'any';
  const expected = condition.value;
  const text = asText(actual);
  switch (condition.operator) {
    case 'is_set':
      return !isEmpty(actual);
    case 'is_empty':
      return isEmpty(actual);
    case 'equals':
      return sameValue(actual, expected as string | number | boolean, kind);
    case 'not_equals':
      return !sameValue(actual, expected as string | number | boolean, kind);
    case 'contains':
      return contains(actual, expected as string, kind);
    case 'not_contains':
      return !contains(actual, expected as string, kind);
    case 'starts_with':
      return text !== undefined && fold(text).startsWith(fold(expected as string));
    case 'ends_with':
      return text !== undefined && fold(text).endsWith(fold(expected as string));
    case 'matches':
      return text !== undefined && patternFinds(expected as string, text);
    case 'in':
      return (expected as (string | number | boolean)[]).some((item) => sameValue(actual, item, kind));
    case 'not_in':
      return !(expected as (string | number | boolean)[]).some((item) => sameValue(actual, item, kind));
    case 'greater_than':
    case 'less_than': {
      const number = asNumber(actual);
      if (number === undefined) return false;
      return condition.operator === 'greater_than' ? number > (expected as number) : number < (expected as number);
    }
    case 'includes_any':
    case 'includes_all': {
      const items = asList(actual);
      if (!items) return false;
      const folded = new Set(items.map(fold));
      const wanted = (expected as string[]).map(fold);
      return condition.operator === 'includes_any' ? wanted.some((item) => folded.has(item)) : wanted.every((item) => folded.has(item));
    }
  }
}
