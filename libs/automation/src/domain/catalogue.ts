// What a rule may say (docs/automation.md): its events, the record each event is about (its
// subject), the fields its conditions and texts may read, the operators each kind of field takes,
// and the actions each subject allows. The validator, the evaluator and the dry run read only this.

// The record an event is about; a subject brings the records named in SUBJECT_RECORDS.
export const SUBJECT_TYPES = ['message', 'conversation', 'contact', 'deal', 'call'] as const;
export type SubjectType = (typeof SUBJECT_TYPES)[number];

export const RULE_EVENTS = {
  'message.received': 'message',
  'conversation.created': 'conversation',
  'conversation.status.changed': 'conversation',
  'conversation.assigned': 'conversation',
  'contact.created': 'contact',
  'contact.updated': 'contact',
  'deal.created': 'deal',
  'deal.stage.changed': 'deal',
  'call.analyzed': 'call',
  // A customer's reply to a broadcast: the reply message is the subject.
  'broadcast.response': 'message',
  // Timers (event_options.minutes): the customer's last message has had no agent reply for that
  // long; that long since the business's last message with no customer answer.
  'conversation.unanswered': 'conversation',
  'conversation.customer_silent': 'conversation',
} as const satisfies Record<string, SubjectType>;

export type RuleEvent = keyof typeof RULE_EVENTS;
export const EVENT_NAMES = Object.keys(RULE_EVENTS) as RuleEvent[];
export const TIMER_EVENTS = ['conversation.unanswered', 'conversation.customer_silent'] as const satisfies readonly RuleEvent[];
// A timer's range in minutes: ten minutes to thirty days (the delays the best-known inbox offers).
export const TIMER_MINUTES = { min: 10, max: 43_200 } as const;

export const isRuleEvent = (value: unknown): value is RuleEvent => typeof value === 'string' && Object.hasOwn(RULE_EVENTS, value);
export const subjectOf = (event: RuleEvent): SubjectType => RULE_EVENTS[event];

// The records a rule's conditions, texts and actions can reach from each subject: a message's
// conversation and contact, a conversation's contact, a deal's or call's contact (when it has one).
export type RecordKind = 'message' | 'conversation' | 'contact' | 'deal';
export const SUBJECT_RECORDS: Record<SubjectType, readonly RecordKind[]> = {
  message: ['message', 'conversation', 'contact'],
  conversation: ['conversation', 'contact'],
  contact: ['contact'],
  deal: ['deal', 'contact'],
  call: ['contact'],
};

// The values messaging and the CRM use (restated: domain code imports no other context).
export const CHANNEL_KINDS = ['chat_app', 'instagram', 'messenger', 'email', 'sms'] as const;
export const CONVERSATION_STATUSES = ['OPEN', 'PENDING', 'SNOOZED', 'RESOLVED'] as const;
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

// text: free text, compared without regard to case; enum: one of `values`, exactly; key: an exact
// string (a stage key); id: a UUID; list: strings (tags); any: a custom field, whatever JSON it holds.
export type FieldKind = 'text' | 'enum' | 'key' | 'id' | 'list' | 'number' | 'boolean' | 'any';

export interface FieldSpec {
  readonly kind: FieldKind;
  readonly record: RecordKind | 'time';
  readonly values?: readonly string[];
}

export const CONDITION_FIELDS: Readonly<Record<string, FieldSpec>> = {
  'message.content': { kind: 'text', record: 'message' },
  'message.channel_kind': { kind: 'enum', record: 'message', values: CHANNEL_KINDS },
  'conversation.status': { kind: 'enum', record: 'conversation', values: CONVERSATION_STATUSES },
  'conversation.channel_kind': { kind: 'enum', record: 'conversation', values: CHANNEL_KINDS },
  'conversation.channel_account_id': { kind: 'id', record: 'conversation' },
  'conversation.assignee_id': { kind: 'id', record: 'conversation' },
  'contact.tags': { kind: 'list', record: 'contact' },
  'contact.opt_in_status': { kind: 'boolean', record: 'contact' },
  'contact.source': { kind: 'text', record: 'contact' },
  'contact.company_id': { kind: 'id', record: 'contact' },
  'deal.stage': { kind: 'key', record: 'deal' },
  'deal.value': { kind: 'number', record: 'deal' },
  'deal.pipeline_id': { kind: 'id', record: 'deal' },
  'deal.owner_id': { kind: 'id', record: 'deal' },
  'time.weekday': { kind: 'enum', record: 'time', values: WEEKDAYS },
  'time.in_business_hours': { kind: 'boolean', record: 'time' },
};

export const CUSTOM_FIELD_PREFIX = 'contact.custom_fields.';
// A custom field's key as a rule names it: letters, digits, `_` and `-`, up to 100.
export const CUSTOM_FIELD_KEY = /^[A-Za-z0-9_-]{1,100}$/;

// The spec of a condition field, or undefined for an unknown one.
export function conditionField(field: string): FieldSpec | undefined {
  if (field.startsWith(CUSTOM_FIELD_PREFIX)) {
    return CUSTOM_FIELD_KEY.test(field.slice(CUSTOM_FIELD_PREFIX.length)) ? { kind: 'any', record: 'contact' } : undefined;
  }
  return Object.hasOwn(CONDITION_FIELDS, field) ? CONDITION_FIELDS[field] : undefined;
}

// Whether a subject reaches a field's record (time is always there).
export const reaches = (subject: SubjectType, record: RecordKind | 'time'): boolean => record === 'time' || SUBJECT_RECORDS[subject].includes(record);

export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'matches',
  'in',
  'not_in',
  'greater_than',
  'less_than',
  'is_set',
  'is_empty',
  'includes_any',
  'includes_all',
] as const;
export type Operator = (typeof OPERATORS)[number];
export const isOperator = (value: unknown): value is Operator => typeof value === 'string' && (OPERATORS as readonly string[]).includes(value);

const EXACT: readonly Operator[] = ['equals', 'not_equals', 'in', 'not_in', 'is_set', 'is_empty'];
export const OPERATORS_BY_KIND: Record<FieldKind, readonly Operator[]> = {
  text: ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'ends_with', 'matches', 'in', 'not_in', 'is_set', 'is_empty'],
  enum: EXACT,
  key: EXACT,
  id: EXACT,
  list: ['contains', 'not_contains', 'includes_any', 'includes_all', 'is_set', 'is_empty'],
  number: ['equals', 'not_equals', 'greater_than', 'less_than', 'in', 'not_in', 'is_set', 'is_empty'],
  boolean: ['equals', 'not_equals', 'is_set', 'is_empty'],
  any: OPERATORS,
};

// Fields a text (`{{contact.first_name | there}}`) may name, per record; plus contact custom fields.
export const TEMPLATE_FIELDS: Record<RecordKind, readonly string[]> = {
  contact: ['first_name', 'last_name', 'email', 'phone', 'source'],
  conversation: ['status', 'channel_kind'],
  message: ['content'],
  deal: ['title', 'stage', 'value', 'currency'],
};

export function templateFieldAllowed(subject: SubjectType, field: string): boolean {
  if (field.startsWith(CUSTOM_FIELD_PREFIX)) return reaches(subject, 'contact') && CUSTOM_FIELD_KEY.test(field.slice(CUSTOM_FIELD_PREFIX.length));
  const dot = field.indexOf('.');
  const record = field.slice(0, dot) as RecordKind;
  return dot > 0 && Object.hasOwn(TEMPLATE_FIELDS, record) && reaches(subject, record) && TEMPLATE_FIELDS[record].includes(field.slice(dot + 1));
}

// Each action type and the record it acts on (null: any subject).
export const ACTION_TARGETS = {
  send_message: 'conversation',
  assign_conversation: 'conversation',
  set_conversation_status: 'conversation',
  add_contact_tags: 'contact',
  remove_contact_tags: 'contact',
  set_contact_field: 'contact',
  set_deal_stage: 'deal',
  assign_deal_owner: 'deal',
  add_note: null,
  create_task: null,
  start_bot: 'conversation',
  start_sequence: 'contact',
  stop_sequences: 'contact',
  send_webhook: null,
  wait: null,
} as const satisfies Record<string, RecordKind | null>;

export type ActionType = keyof typeof ACTION_TARGETS;
export const ACTION_TYPES = Object.keys(ACTION_TARGETS) as ActionType[];
export const isActionType = (value: unknown): value is ActionType => typeof value === 'string' && Object.hasOwn(ACTION_TARGETS, value);

// Statuses an action may set (a snooze needs a time, which rules do not give).
export const SETTABLE_CONVERSATION_STATUSES = ['OPEN', 'PENDING', 'RESOLVED'] as const;
// Contact columns set_contact_field may write, with their kind; or `custom_fields.<key>`.
export const SETTABLE_CONTACT_FIELDS = {
  first_name: 'text',
  last_name: 'text',
  source: 'text',
  description: 'text',
  opt_in_status: 'boolean',
  company_id: 'id',
  assignee_id: 'id',
} as const;

export const LIMITS = {
  name: 200,
  description: 2000,
  conditions: 50,
  // The root group is level 1: groups nest at most two levels below it.
  groupLevels: 3,
  actions: 20,
  text: 4096,
  title: 200,
  tags: 20,
  tag: 50,
  stringValue: 1000,
  listValues: 100,
  pattern: 500,
  url: 2048,
  position: 1_000_000,
  taskMinutes: 525_600,
} as const;
