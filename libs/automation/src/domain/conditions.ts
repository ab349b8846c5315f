import { isUuid } from '@engage/shared-kernel';
import { conditionField, type FieldSpec, isOperator, LIMITS, type Operator, OPERATORS_BY_KIND, reaches, type SubjectType } from './catalogue';
import { patternProblem } from './regex';
import { isPlainObject, onlyKeys, quoted, ruleInvalid } from './rule-error';

// A rule's conditions: `{all: [...]}` or `{any: [...]}`, whose items are conditions or groups.
export type ConditionValue = string | number | boolean | null | (string | number | boolean)[];
export interface Condition {
  field: string;
  operator: Operator;
  value?: ConditionValue;
}
export type ConditionGroup = { all: ConditionItem[] } | { any: ConditionItem[] };
export type ConditionItem = Condition | ConditionGroup;

export const isGroup = (item: ConditionItem): item is ConditionGroup => 'all' in item || 'any' in item;
export const groupItems = (group: ConditionGroup): ConditionItem[] => ('all' in group ? group.all : group.any);

// The fields another vocabulary reads (a bot's branch: its variables and the contact), replacing the
// rule's fields and their reach from the subject.
export type FieldLookup = (field: string) => FieldSpec | undefined;

// The conditions checked against the event's subject, in canonical form; a 400 naming the path
// (`conditions.all[1].operator`) of the first thing wrong.
export function parseConditions(value: unknown, subject: SubjectType, path = 'conditions', fields?: FieldLookup): ConditionGroup {
  const counter = { conditions: 0, fields };
  return parseGroup(value, subject, path, 1, counter, true);
}

type Counter = { conditions: number; fields?: FieldLookup };

function parseGroup(value: unknown, subject: SubjectType, path: string, level: number, counter: Counter, root: boolean): ConditionGroup {
  if (!isPlainObject(value)) throw ruleInvalid(path, 'must be an object {"all": [...]} or {"any": [...]}');
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'all' && keys[0] !== 'any')) {
    throw ruleInvalid(path, `must have exactly one key, "all" or "any"; got ${keys.length === 0 ? 'none' : keys.map((key) => quoted(key)).join(', ')}`);
  }
  const mode = keys[0] as 'all' | 'any';
  const list = value[mode];
  const here = `${path}.${mode}`;
  if (!Array.isArray(list)) throw ruleInvalid(here, 'must be an array of conditions or groups');
  // Only the root may be empty ({"all": []}: the rule runs on every event).
  if (list.length === 0 && !(root && mode === 'all')) throw ruleInvalid(here, 'must hold at least one condition or group');
  const items = list.map((item: unknown, index): ConditionItem => {
    const at = `${here}[${index}]`;
    if (isPlainObject(item) && ('all' in item || 'any' in item)) {
      if (level >= LIMITS.groupLevels) throw ruleInvalid(at, `groups nest at most ${LIMITS.groupLevels} levels deep`);
      return parseGroup(item, subject, at, level + 1, counter, false);
    }
    counter.conditions += 1;
    if (counter.conditions > LIMITS.conditions) throw ruleInvalid(at, `a rule has at most ${LIMITS.conditions} conditions`);
    return parseCondition(item, subject, at, counter.fields);
  });
  return mode === 'all' ? { all: items } : { any: items };
}

function parseCondition(value: unknown, subject: SubjectType, path: string, fields?: FieldLookup): Condition {
  if (!isPlainObject(value)) throw ruleInvalid(path, 'must be a condition {"field", "operator", "value"} or a group {"all"|"any": [...]}');
  onlyKeys(value, ['field', 'operator', 'value'], path);
  const { field, operator } = value;
  if (typeof field !== 'string' || field === '') throw ruleInvalid(`${path}.field`, 'is required: a field such as "message.content"');
  const spec = fields ? fields(field) : conditionField(field);
  if (!spec) throw ruleInvalid(`${path}.field`, `${quoted(field)} is not a field conditions can read`);
  if (!fields && !reaches(subject, spec.record))
    throw ruleInvalid(`${path}.field`, `${quoted(field)} is not available: this rule's event is about a ${subject}`);
  if (!isOperator(operator)) throw ruleInvalid(`${path}.operator`, `${quoted(operator)} is not an operator; one of ${OPERATORS_BY_KIND.any.join(', ')}`);
  if (!OPERATORS_BY_KIND[spec.kind].includes(operator)) {
    throw ruleInvalid(`${path}.operator`, `${operator} does not apply to ${field}; it takes ${OPERATORS_BY_KIND[spec.kind].join(', ')}`);
  }
  const parsed = parseValue(value.value, spec, operator, `${path}.value`);
  return parsed === undefined ? { field, operator } : { field, operator, value: parsed };
}

function parseValue(value: unknown, spec: FieldSpec, operator: Operator, path: string): ConditionValue | undefined {
  switch (operator) {
    case 'is_set':
    case 'is_empty':
      if (value !== undefined && value !== null) throw ruleInvalid(path, `${operator} takes no value`);
      return undefined;
    case 'equals':
    case 'not_equals':
      return scalar(value, spec, path);
    case 'contains':
    case 'not_contains':
    case 'starts_with':
    case 'ends_with':
      return nonEmptyText(value, path, spec.kind === 'list' ? LIMITS.tag : LIMITS.stringValue);
    case 'matches': {
      const pattern = nonEmptyText(value, path, LIMITS.pattern);
      const problem = patternProblem(pattern);
      if (problem) throw ruleInvalid(path, problem);
      return pattern;
    }
    case 'in':
    case 'not_in':
      return list(value, path, (item, at) => scalar(item, spec, at));
    case 'greater_than':
    case 'less_than':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw ruleInvalid(path, `${operator} takes a number`);
      return value;
    case 'includes_any':
    case 'includes_all':
      return list(value, path, (item, at) => nonEmptyText(item, at, LIMITS.stringValue));
  }
}

function nonEmptyText(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string' || value === '') throw ruleInvalid(path, 'must be a non-empty string');
  if (value.length > max) throw ruleInvalid(path, `must be at most ${max} characters`);
  return value;
}

function list<T extends string | number | boolean>(value: unknown, path: string, each: (item: unknown, at: string) => T): T[] {
  if (!Array.isArray(value) || value.length === 0) throw ruleInvalid(path, 'must be a non-empty array');
  if (value.length > LIMITS.listValues) throw ruleInvalid(path, `may hold at most ${LIMITS.listValues} values`);
  return value.map((item, index) => each(item, `${path}[${index}]`));
}

// One value of the field's kind.
function scalar(value: unknown, spec: FieldSpec, path: string): string | number | boolean {
  switch (spec.kind) {
    case 'text':
    case 'key':
      if (typeof value !== 'string') throw ruleInvalid(path, 'must be a string');
      if (value.length > LIMITS.stringValue) throw ruleInvalid(path, `must be at most ${LIMITS.stringValue} characters`);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !spec.values!.includes(value)) throw ruleInvalid(path, `${quoted(value)} is not one of ${spec.values!.join(', ')}`);
      return value;
    case 'id':
      if (!isUuid(value)) throw ruleInvalid(path, 'must be a UUID');
      return value.toLowerCase();
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw ruleInvalid(path, 'must be a number');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw ruleInvalid(path, 'must be true or false');
      return value;
    case 'list':
      throw ruleInvalid(path, 'a list field takes contains, includes_any or includes_all');
    case 'any':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'boolean') return value;
      if (typeof value !== 'string') throw ruleInvalid(path, 'must be a string, a number or true or false');
      if (value.length > LIMITS.stringValue) throw ruleInvalid(path, `must be at most ${LIMITS.stringValue} characters`);
      return value;
  }
}
