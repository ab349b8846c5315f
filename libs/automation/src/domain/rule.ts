import { type Action, parseActions } from './actions';
import { EVENT_NAMES, isRuleEvent, LIMITS, type RuleEvent, subjectOf, TIMER_EVENTS, TIMER_MINUTES } from './catalogue';
import { type ConditionGroup, parseConditions } from './conditions';
import { isPlainObject, quoted, ruleInvalid } from './rule-error';

// A rule as a writer gives it (/rest/v1/automation_rules): checked whole, so a changed event is
// checked against the conditions and actions it keeps, and the reverse.
export interface RuleFields {
  name: string;
  description: string;
  event: RuleEvent;
  event_options: { minutes?: number };
  conditions: ConditionGroup;
  actions: Action[];
  is_active: boolean;
  position: number;
}

export const WRITABLE_RULE_FIELDS = ['name', 'description', 'event', 'event_options', 'conditions', 'actions', 'is_active', 'position'] as const;
// Columns a client may echo back from a row it read; their values are the service's.
const IGNORED = ['id', 'organization_id', 'created_by', 'created_at', 'updated_at'];

// The fields of a new rule (`current` absent) or of a changed one (`current`: the stored fields,
// which `input` overrides key by key). null on an optional field means its default.
export function parseRule(input: Record<string, unknown>, current?: RuleFields): RuleFields {
  const unknown = Object.keys(input).find((key) => !(WRITABLE_RULE_FIELDS as readonly string[]).includes(key) && !IGNORED.includes(key));
  if (unknown !== undefined) throw ruleInvalid(unknown.slice(0, 64), `unknown field; writable: ${WRITABLE_RULE_FIELDS.join(', ')}`);
  const given = (key: (typeof WRITABLE_RULE_FIELDS)[number]) => key in input && input[key] !== undefined;
  const pick = (key: (typeof WRITABLE_RULE_FIELDS)[number]): unknown => (given(key) ? input[key] : current?.[key]);

  const event = pick('event');
  if (!isRuleEvent(event)) {
    throw ruleInvalid(
      'event',
      event === undefined || event === null
        ? `is required: one of ${EVENT_NAMES.join(', ')}`
        : `${quoted(event)} is not an event; one of ${EVENT_NAMES.join(', ')}`,
    );
  }
  const subject = subjectOf(event);
  const name = pick('name');
  if (typeof name !== 'string' || name.trim() === '') throw ruleInvalid('name', 'is required: a non-empty string');
  if (name.length > LIMITS.name) throw ruleInvalid('name', `must be at most ${LIMITS.name} characters`);
  const description = pick('description') ?? '';
  if (typeof description !== 'string') throw ruleInvalid('description', 'must be a string');
  if (description.length > LIMITS.description) throw ruleInvalid('description', `must be at most ${LIMITS.description} characters`);
  const isActive = pick('is_active') ?? true;
  if (typeof isActive !== 'boolean') throw ruleInvalid('is_active', 'must be true or false');
  const position = pick('position') ?? 0;
  if (typeof position !== 'number' || !Number.isInteger(position) || position < 0 || position > LIMITS.position) {
    throw ruleInvalid('position', `must be a whole number from 0 to ${LIMITS.position}`);
  }
  // An event changed without new options takes none (a timer's minutes do not carry over to another event).
  const options = given('event_options') ? input.event_options : given('event') && current && current.event !== event ? undefined : current?.event_options;
  const actions = pick('actions');
  if (actions === undefined || actions === null) throw ruleInvalid('actions', 'is required: a non-empty array of actions');
  return {
    name: name.trim(),
    description,
    event,
    event_options: eventOptions(options, event),
    conditions: parseConditions(pick('conditions') ?? { all: [] }, subject),
    actions: parseActions(actions, subject),
    is_active: isActive,
    position,
  };
}

function eventOptions(value: unknown, event: RuleEvent): { minutes?: number } {
  const timer = (TIMER_EVENTS as readonly RuleEvent[]).includes(event);
  if (value === undefined || value === null) {
    if (timer) throw ruleInvalid('event_options.minutes', `is required for ${event}: a whole number from ${TIMER_MINUTES.min} to ${TIMER_MINUTES.max}`);
    return {};
  }
  if (!isPlainObject(value)) throw ruleInvalid('event_options', 'must be an object');
  const keys = Object.keys(value);
  if (!timer) {
    if (keys.length > 0) throw ruleInvalid(`event_options.${keys[0].slice(0, 64)}`, `unknown key; ${event} takes no options`);
    return {};
  }
  const extra = keys.find((key) => key !== 'minutes');
  if (extra !== undefined) throw ruleInvalid(`event_options.${extra.slice(0, 64)}`, 'unknown key; allowed here: minutes');
  const minutes = value.minutes;
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < TIMER_MINUTES.min || minutes > TIMER_MINUTES.max) {
    throw ruleInvalid('event_options.minutes', `must be a whole number from ${TIMER_MINUTES.min} to ${TIMER_MINUTES.max}`);
  }
  return { minutes };
}
