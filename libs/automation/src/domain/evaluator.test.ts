import type { Condition, ConditionGroup } from './conditions';
import { evaluate, holds, isEmpty, type Snapshot, valueOf } from './evaluator';

const snapshot: Snapshot = {
  message: { id: 'm1', content: 'Hello, what is the PRICE of the blue one?' },
  conversation: { id: 'c1', status: 'OPEN', channel_kind: 'messenger', assignee_id: null, channel_account_id: 'A1B2C3D4-0000-4000-8000-000000000001' },
  contact: {
    id: 'k1',
    first_name: 'Ada',
    tags: ['VIP', 'b2b'],
    source: 'Ads',
    opt_in_status: true,
    company_id: null,
    custom_fields: { plan: 'Gold', seats: 12, score: '7.5', trial: false, langs: ['en', 'ar'], blank: '  ', none: [], nothing: null },
  },
  time: { weekday: 'mon', in_business_hours: false },
};

const c = (field: string, operator: Condition['operator'], value?: Condition['value']): Condition => ({
  field,
  operator,
  ...(value === undefined ? {} : { value }),
});
const check = (condition: Condition) => holds(condition, valueOf(snapshot, condition.field));

describe('valueOf', () => {
  it("should read a record's field, a custom field, the message's channel through its conversation, and time", () => {
    expect(valueOf(snapshot, 'contact.first_name')).toBe('Ada');
    expect(valueOf(snapshot, 'contact.custom_fields.seats')).toBe(12);
    expect(valueOf(snapshot, 'message.channel_kind')).toBe('messenger');
    expect(valueOf(snapshot, 'time.weekday')).toBe('mon');
  });

  it('should give undefined for a missing record, field or custom field', () => {
    expect(valueOf(snapshot, 'deal.value')).toBeUndefined();
    expect(valueOf(snapshot, 'contact.custom_fields.unknown')).toBeUndefined();
    expect(valueOf({ time: snapshot.time }, 'contact.custom_fields.plan')).toBeUndefined();
    expect(valueOf({ conversation: snapshot.conversation, time: snapshot.time }, 'message.channel_kind')).toBeUndefined();
    expect(valueOf(snapshot, 'contact.toString')).toBeUndefined();
  });
});

describe('holds: each operator', () => {
  const cases: [string, Condition, boolean][] = [
    ['equals on text ignores case', c('contact.source', 'equals', 'ads'), true],
    ['equals on text', c('contact.source', 'equals', 'referral'), false],
    ['equals on an enum is exact', c('conversation.status', 'equals', 'OPEN'), true],
    ['equals on an id ignores the case of hex digits', c('conversation.channel_account_id', 'equals', 'a1b2c3d4-0000-4000-8000-000000000001'), true],
    ['equals on a boolean', c('contact.opt_in_status', 'equals', true), true],
    ['equals on a boolean false', c('time.in_business_hours', 'equals', true), false],
    ['equals a number on a numeric custom field', c('contact.custom_fields.seats', 'equals', 12), true],
    ['equals text on a numeric custom field', c('contact.custom_fields.seats', 'equals', '12'), true],
    ['not_equals', c('conversation.status', 'not_equals', 'RESOLVED'), true],
    ['not_equals on the same value', c('contact.source', 'not_equals', 'ADS'), false],
    ['contains in text', c('message.content', 'contains', 'price'), true],
    ['contains not in text', c('message.content', 'contains', 'refund'), false],
    ['contains on a list is membership, ignoring case', c('contact.tags', 'contains', 'vip'), true],
    ['contains on a list is not a substring', c('contact.tags', 'contains', 'vi'), false],
    ['contains on a custom list', c('contact.custom_fields.langs', 'contains', 'AR'), true],
    ['not_contains', c('message.content', 'not_contains', 'refund'), true],
    ['not_contains on a list', c('contact.tags', 'not_contains', 'b2b'), false],
    ['starts_with', c('message.content', 'starts_with', 'hello'), true],
    ['starts_with false', c('message.content', 'starts_with', 'price'), false],
    ['ends_with', c('message.content', 'ends_with', 'ONE?'), true],
    ['ends_with false', c('message.content', 'ends_with', 'hello'), false],
    ['matches', c('message.content', 'matches', '\\bPRICE\\b'), true],
    ['matches is case-sensitive', c('message.content', 'matches', '\\bprice\\b'), false],
    ['matches with (?i)', c('message.content', 'matches', '(?i)\\bprice\\b'), true],
    ['matches on a number', c('contact.custom_fields.seats', 'matches', '^1\\d$'), true],
    ['in', c('time.weekday', 'in', ['sat', 'sun', 'mon']), true],
    ['in false', c('time.weekday', 'in', ['sat', 'sun']), false],
    ['in on text ignores case', c('contact.custom_fields.plan', 'in', ['gold', 'platinum']), true],
    ['not_in', c('conversation.channel_kind', 'not_in', ['email', 'sms']), true],
    ['not_in false', c('conversation.channel_kind', 'not_in', ['messenger']), false],
    ['greater_than on a number', c('contact.custom_fields.seats', 'greater_than', 10), true],
    ['greater_than on a numeric string', c('contact.custom_fields.score', 'greater_than', 7), true],
    ['greater_than false', c('contact.custom_fields.seats', 'greater_than', 12), false],
    ['greater_than on text', c('contact.custom_fields.plan', 'greater_than', 1), false],
    ['less_than', c('contact.custom_fields.score', 'less_than', 8), true],
    ['less_than false', c('contact.custom_fields.seats', 'less_than', 12), false],
    ['is_set', c('contact.first_name', 'is_set'), true],
    ['is_set on a blank string', c('contact.custom_fields.blank', 'is_set'), false],
    ['is_set on false (a value)', c('contact.custom_fields.trial', 'is_set'), true],
    ['is_empty on null', c('conversation.assignee_id', 'is_empty'), true],
    ['is_empty on an empty list', c('contact.custom_fields.none', 'is_empty'), true],
    ['is_empty on a value', c('contact.tags', 'is_empty'), false],
    ['includes_any', c('contact.tags', 'includes_any', ['new', 'vip']), true],
    ['includes_any false', c('contact.tags', 'includes_any', ['new', 'cold']), false],
    ['includes_all', c('contact.tags', 'includes_all', ['vip', 'B2B']), true],
    ['includes_all false', c('contact.tags', 'includes_all', ['vip', 'new']), false],
    ['includes_any on a scalar custom field (a list of one)', c('contact.custom_fields.plan', 'includes_any', ['gold']), true],
  ];
  it.each(cases)('%s', (_name, condition, expected) => {
    expect(check(condition)).toBe(expected);
  });
});

describe('holds: missing values', () => {
  // No deal in the snapshot, no such custom field, a null id.
  const missing = ['deal.stage', 'contact.custom_fields.nope', 'conversation.assignee_id'];
  const cases: [Condition['operator'], Condition['value'] | undefined, boolean][] = [
    ['equals', 'x', false],
    ['not_equals', 'x', true],
    ['contains', 'x', false],
    ['not_contains', 'x', true],
    ['starts_with', 'x', false],
    ['ends_with', 'x', false],
    ['matches', '.*', false],
    ['in', ['x'], false],
    ['not_in', ['x'], true],
    ['greater_than', 0, false],
    ['less_than', 0, false],
    ['is_set', undefined, false],
    ['is_empty', undefined, true],
    ['includes_any', ['x'], false],
    ['includes_all', ['x'], false],
  ];
  it.each(cases)('%s on a missing value should be %s', (operator, value, expected) => {
    for (const field of missing) expect({ field, result: check(c(field, operator, value)) }).toEqual({ field, result: expected });
  });

  it('should count blank strings, empty lists and objects as empty, and zero and false as values', () => {
    expect([null, undefined, '', '  ', [], {}].every(isEmpty)).toBe(true);
    expect([0, false, 'a', ['a'], { a: 1 }].some(isEmpty)).toBe(false);
  });
});

describe('evaluate', () => {
  it('should report each condition with its path, value and actual value, through nested groups', () => {
    const conditions: ConditionGroup = {
      all: [
        c('message.content', 'contains', 'price'),
        { any: [c('contact.tags', 'contains', 'new'), { all: [c('time.weekday', 'equals', 'mon'), c('deal.value', 'greater_than', 5)] }] },
      ],
    };
    const result = evaluate(conditions, snapshot);
    expect(result.matched).toBe(false);
    expect(result.conditions).toEqual([
      { path: 'conditions.all[0]', field: 'message.content', operator: 'contains', value: 'price', actual: snapshot.message!.content, matched: true },
      { path: 'conditions.all[1].any[0]', field: 'contact.tags', operator: 'contains', value: 'new', actual: ['VIP', 'b2b'], matched: false },
      { path: 'conditions.all[1].any[1].all[0]', field: 'time.weekday', operator: 'equals', value: 'mon', actual: 'mon', matched: true },
      { path: 'conditions.all[1].any[1].all[1]', field: 'deal.value', operator: 'greater_than', value: 5, actual: null, matched: false },
    ]);
  });

  it('should match when an any group has one condition that holds', () => {
    const conditions: ConditionGroup = { any: [c('contact.source', 'equals', 'referral'), { all: [c('contact.tags', 'includes_all', ['vip'])] }] };
    expect(evaluate(conditions, snapshot).matched).toBe(true);
  });

  it('should match an empty root all (a rule with no conditions) and report nothing', () => {
    expect(evaluate({ all: [] }, snapshot)).toEqual({ matched: true, conditions: [] });
  });

  it('should take linear time on input that makes a backtracking engine explode', () => {
    const started = Date.now();
    const text = `${'a'.repeat(50_000)}!`;
    expect(holds(c('message.content', 'matches', '^(a+)+$'), text)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
