import { DomainError } from '@engage/shared-kernel';
import { parseRule, type RuleFields } from './rule';

const valid = () => ({
  name: 'Greet',
  event: 'message.received',
  conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'price' }] },
  actions: [{ type: 'send_message', text: 'Hi {{contact.first_name | there}}' }],
});

// The path a refused rule names (details.path, and the start of the message).
function refusal(input: Record<string, unknown>, current?: RuleFields): { path: string; message: string } {
  try {
    parseRule(input, current);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const domain = error as DomainError;
    expect(domain.kind).toBe('validation');
    expect(domain.code).toBe('automation_rule.invalid');
    const path = (domain.details as { path: string }).path;
    expect(domain.message.startsWith(`${path}: `)).toBe(true);
    return { path, message: domain.message };
  }
  throw new Error('the rule was accepted');
}

const deep = (depth: number): unknown => (depth === 0 ? { field: 'contact.source', operator: 'equals', value: 'ads' } : { any: [deep(depth - 1)] });

describe('parseRule', () => {
  it('should take a valid rule and fill the defaults', () => {
    expect(parseRule(valid())).toEqual({
      ...valid(),
      description: '',
      event_options: {},
      is_active: true,
      position: 0,
    });
  });

  it('should take a rule without conditions as one that runs on every event', () => {
    const { conditions: _unused, ...rest } = valid();
    expect(parseRule(rest).conditions).toEqual({ all: [] });
  });

  it('should ignore echoed read-only columns and treat null optional fields as their defaults', () => {
    const parsed = parseRule({ ...valid(), id: 'x', created_at: 'y', description: null, is_active: null, position: null, event_options: null });
    expect(parsed).toMatchObject({ description: '', is_active: true, position: 0, event_options: {} });
  });

  it('should take every operator on a field whose kind allows it, and nested groups three levels deep', () => {
    const conditions = {
      any: [
        { field: 'message.content', operator: 'matches', value: '^(hi|hello)\\b' },
        { field: 'message.content', operator: 'starts_with', value: 'Hi' },
        { field: 'message.content', operator: 'ends_with', value: '?' },
        { field: 'message.content', operator: 'not_contains', value: 'stop' },
        { field: 'message.content', operator: 'in', value: ['yes', 'no'] },
        { field: 'message.channel_kind', operator: 'not_in', value: ['email'] },
        { field: 'conversation.status', operator: 'not_equals', value: 'RESOLVED' },
        { field: 'conversation.assignee_id', operator: 'is_empty' },
        { field: 'contact.tags', operator: 'includes_all', value: ['vip', 'b2b'] },
        { field: 'contact.tags', operator: 'includes_any', value: ['vip'] },
        { field: 'contact.custom_fields.plan', operator: 'greater_than', value: 3 },
        { field: 'contact.custom_fields.plan', operator: 'less_than', value: 3 },
        { field: 'contact.opt_in_status', operator: 'equals', value: true },
        { field: 'time.weekday', operator: 'in', value: ['sat', 'sun'] },
        { field: 'time.in_business_hours', operator: 'is_set' },
        deep(2),
      ],
    };
    expect(parseRule({ ...valid(), conditions }).conditions).toEqual(conditions);
  });

  it('should take a timer with its minutes, and each action type', () => {
    const actions = [
      { type: 'send_message', text: 'Still there, {{contact.first_name|friend}}?', media_url: 'https://cdn.example.com/a.png' },
      { type: 'assign_conversation', user_id: 'round_robin' },
      { type: 'set_conversation_status', status: 'PENDING' },
      { type: 'add_contact_tags', tags: ['silent'] },
      { type: 'remove_contact_tags', tags: ['hot'] },
      { type: 'set_contact_field', field: 'custom_fields.stage', value: 'cold' },
      { type: 'set_contact_field', field: 'opt_in_status', value: false },
      { type: 'add_note', text: 'Silent for an hour' },
      { type: 'create_task', title: 'Call {{contact.first_name}}', due_in_minutes: 60, assignee_id: '0b7e1c52-7d4c-4a44-9d55-2f6e1a1a1a1a' },
      { type: 'start_bot', bot_flow_id: '0b7e1c52-7d4c-4a44-9d55-2f6e1a1a1a1b' },
      { type: 'start_sequence', sequence_id: '0b7e1c52-7d4c-4a44-9d55-2f6e1a1a1a1c' },
      { type: 'stop_sequences' },
      { type: 'wait', minutes: 30 },
      { type: 'send_webhook', url: 'https://hooks.example.com/x', secret: 'a-shared-secret-of-24ch' },
    ];
    const parsed = parseRule({ ...valid(), event: 'conversation.unanswered', event_options: { minutes: 60 }, conditions: { all: [] }, actions });
    expect(parsed).toMatchObject({ event_options: { minutes: 60 }, actions });
    const deal = parseRule({
      ...valid(),
      event: 'deal.stage.changed',
      conditions: { all: [{ field: 'deal.value', operator: 'greater_than', value: 1000 }] },
      actions: [
        { type: 'set_deal_stage', stage: 'won' },
        { type: 'assign_deal_owner', user_id: '0B7E1C52-7D4C-4A44-9D55-2F6E1A1A1A1A' },
      ],
    });
    expect(deal.actions[1]).toEqual({ type: 'assign_deal_owner', user_id: '0b7e1c52-7d4c-4a44-9d55-2f6e1a1a1a1a' });
  });

  it('should merge a change into the stored rule and check the whole', () => {
    const stored = parseRule(valid());
    expect(parseRule({ name: 'Renamed' }, stored)).toEqual({ ...stored, name: 'Renamed' });
    // A deal event has no message: the stored condition on message.content no longer fits.
    expect(refusal({ event: 'deal.created' }, stored).path).toBe('conditions.all[0].field');
    // A timer's minutes do not carry over to another event; the new timer needs its own.
    const timer = parseRule({ ...valid(), event: 'conversation.unanswered', event_options: { minutes: 30 }, conditions: { all: [] } });
    expect(parseRule({ event: 'conversation.created' }, timer).event_options).toEqual({});
    expect(refusal({ event: 'conversation.customer_silent' }, parseRule({ ...valid(), event: 'conversation.created', conditions: { all: [] } })).path).toBe(
      'event_options.minutes',
    );
  });

  const v = valid();
  const condition = (c: unknown) => ({ ...v, conditions: { all: [{ field: 'contact.source', operator: 'equals', value: 'ads' }, c] } });
  const action = (a: unknown) => ({ ...v, actions: [a] });
  const cases: [string, Record<string, unknown>, string, RegExp?][] = [
    ['an unknown top-level field', { ...v, colour: 'red' }, 'colour', /unknown field/],
    ['a missing name', { ...v, name: undefined }, 'name'],
    ['a blank name', { ...v, name: '  ' }, 'name'],
    ['a name of 201 characters', { ...v, name: 'x'.repeat(201) }, 'name', /at most 200/],
    ['a description that is not text', { ...v, description: 5 }, 'description'],
    ['a description of 2001 characters', { ...v, description: 'x'.repeat(2001) }, 'description'],
    ['a missing event', { ...v, event: undefined }, 'event', /required/],
    ['an unknown event', { ...v, event: 'message.deleted' }, 'event', /not an event/],
    ['options on an event that takes none', { ...v, event_options: { minutes: 5 } }, 'event_options.minutes', /takes no options/],
    ['options that are not an object', { ...v, event_options: [1] }, 'event_options'],
    ['a timer without minutes', { ...v, event: 'conversation.unanswered', conditions: { all: [] } }, 'event_options.minutes', /required/],
    ['a timer of 5 minutes', { ...v, event: 'conversation.unanswered', event_options: { minutes: 5 }, conditions: { all: [] } }, 'event_options.minutes'],
    ['a timer of 1.5 minutes', { ...v, event: 'conversation.unanswered', event_options: { minutes: 1.5 }, conditions: { all: [] } }, 'event_options.minutes'],
    ['an unknown timer option', { ...v, event: 'conversation.unanswered', event_options: { minutes: 60, x: 1 }, conditions: { all: [] } }, 'event_options.x'],
    ['is_active that is not a boolean', { ...v, is_active: 'yes' }, 'is_active'],
    ['a negative position', { ...v, position: -1 }, 'position'],
    ['a fractional position', { ...v, position: 1.5 }, 'position'],
    ['conditions that are not an object', { ...v, conditions: [] }, 'conditions'],
    ['conditions with both all and any', { ...v, conditions: { all: [], any: [] } }, 'conditions', /exactly one key/],
    ['conditions with another key', { ...v, conditions: { every: [] } }, 'conditions'],
    ['an all that is not an array', { ...v, conditions: { all: {} } }, 'conditions.all'],
    ['an empty root any', { ...v, conditions: { any: [] } }, 'conditions.any'],
    ['an empty nested group', condition({ all: [] }), 'conditions.all[1].all'],
    ['groups four levels deep', { ...v, conditions: { all: [deep(3)] } }, 'conditions.all[0].any[0].any[0]', /at most 3 levels/],
    ['a condition that is not an object', condition('x'), 'conditions.all[1]'],
    ['an unknown key in a condition', condition({ field: 'contact.source', operator: 'equals', value: 'a', negate: true }), 'conditions.all[1].negate'],
    ['a condition without a field', condition({ operator: 'equals', value: 'a' }), 'conditions.all[1].field', /required/],
    ['an unknown field', condition({ field: 'contact.shoe_size', operator: 'equals', value: 'a' }), 'conditions.all[1].field', /not a field/],
    ['a bad custom field key', condition({ field: 'contact.custom_fields.a.b', operator: 'equals', value: 'a' }), 'conditions.all[1].field'],
    ['a field the subject lacks', { ...v, event: 'contact.created', actions: [{ type: 'add_note', text: 'x' }] }, 'conditions.all[0].field', /about a contact/],
    ['an unknown operator', condition({ field: 'contact.source', operator: 'between', value: 'a' }), 'conditions.all[1].operator', /not an operator/],
    [
      'an operator the field does not take',
      {
        ...v,
        event: 'deal.created',
        conditions: { all: [{ field: 'deal.value', operator: 'contains', value: '1' }] },
        actions: [{ type: 'add_note', text: 'x' }],
      },
      'conditions.all[0].operator',
      /takes equals/,
    ],
    ['contains on an id', condition({ field: 'contact.company_id', operator: 'contains', value: 'a' }), 'conditions.all[1].operator', /does not apply/],
    ['a value given to is_set', condition({ field: 'contact.source', operator: 'is_set', value: 'a' }), 'conditions.all[1].value', /no value/],
    ['a number to compare with text', condition({ field: 'contact.source', operator: 'equals', value: 1 }), 'conditions.all[1].value'],
    ['a text value of 1001 characters', condition({ field: 'contact.source', operator: 'equals', value: 'x'.repeat(1001) }), 'conditions.all[1].value'],
    ['an empty contains', condition({ field: 'contact.source', operator: 'contains', value: '' }), 'conditions.all[1].value'],
    ['a status that does not exist', condition({ field: 'conversation.status', operator: 'equals', value: 'open' }), 'conditions.all[1].value'],
    ['an id that is not a UUID', condition({ field: 'conversation.assignee_id', operator: 'equals', value: 'me' }), 'conditions.all[1].value'],
    ['a boolean given as text', condition({ field: 'contact.opt_in_status', operator: 'equals', value: 'true' }), 'conditions.all[1].value'],
    ['a greater_than with text', condition({ field: 'contact.custom_fields.n', operator: 'greater_than', value: '3' }), 'conditions.all[1].value'],
    ['an empty in', condition({ field: 'contact.source', operator: 'in', value: [] }), 'conditions.all[1].value'],
    ['an in with 101 values', condition({ field: 'contact.source', operator: 'in', value: Array(101).fill('a') }), 'conditions.all[1].value', /at most 100/],
    ['a bad item of an in', condition({ field: 'time.weekday', operator: 'in', value: ['mon', 'funday'] }), 'conditions.all[1].value[1]'],
    ['includes_any with a number', condition({ field: 'contact.tags', operator: 'includes_any', value: [1] }), 'conditions.all[1].value[0]'],
    ['a custom field value that is an object', condition({ field: 'contact.custom_fields.x', operator: 'equals', value: {} }), 'conditions.all[1].value'],
    [
      'an invalid regular expression',
      condition({ field: 'message.content', operator: 'matches', value: '(unclosed' }),
      'conditions.all[1].value',
      /linear-time/,
    ],
    ['a backreference', condition({ field: 'message.content', operator: 'matches', value: '(a+)\\1' }), 'conditions.all[1].value', /backreferences/],
    ['a lookahead', condition({ field: 'message.content', operator: 'matches', value: '(?=a)a' }), 'conditions.all[1].value'],
    [
      'a pattern too large once compiled',
      condition({ field: 'message.content', operator: 'matches', value: '[a-z]{1,1000}[0-9]{1,1000}[A-Z]{1,1000}' }),
      'conditions.all[1].value',
      /too large/,
    ],
    ['a pattern of 501 characters', condition({ field: 'message.content', operator: 'matches', value: 'a'.repeat(501) }), 'conditions.all[1].value'],
    ['51 conditions', { ...v, conditions: { all: Array(51).fill({ field: 'contact.source', operator: 'is_set' }) } }, 'conditions.all[50]', /at most 50/],
    ['missing actions', { ...v, actions: undefined }, 'actions', /required/],
    ['no actions', { ...v, actions: [] }, 'actions'],
    ['21 actions', { ...v, actions: Array(21).fill({ type: 'add_note', text: 'x' }) }, 'actions', /at most 20/],
    ['an action that is not an object', action(7), 'actions[0]'],
    ['an unknown action', action({ type: 'launch_rocket' }), 'actions[0].type', /not an action/],
    ['an action the subject cannot take', action({ type: 'set_deal_stage', stage: 'won' }), 'actions[0].type', /needs a deal/],
    ['an unknown key in an action', action({ type: 'add_note', text: 'x', pinned: true }), 'actions[0].pinned'],
    ['a message without text', action({ type: 'send_message' }), 'actions[0].text'],
    ['a text of 4097 characters', action({ type: 'send_message', text: 'x'.repeat(4097) }), 'actions[0].text', /at most 4096/],
    ['an unknown placeholder', action({ type: 'send_message', text: 'Hi {{contact.shoe_size}}' }), 'actions[0].text', /not a field/],
    ['a placeholder the subject lacks', action({ type: 'send_message', text: '{{deal.title}}' }), 'actions[0].text'],
    ['an unclosed placeholder', action({ type: 'send_message', text: 'Hi {{contact.first_name' }), 'actions[0].text', /malformed/],
    ['a media address over http', action({ type: 'send_message', text: 'x', media_url: 'http://cdn.example.com/a.png' }), 'actions[0].media_url'],
    ['a media address that is not one', action({ type: 'send_message', text: 'x', media_url: 'not a url' }), 'actions[0].media_url'],
    ['an assignee that is neither a UUID nor round_robin', action({ type: 'assign_conversation', user_id: 'bob' }), 'actions[0].user_id'],
    ['a status a rule cannot set', action({ type: 'set_conversation_status', status: 'SNOOZED' }), 'actions[0].status'],
    ['tags that are not a list', action({ type: 'add_contact_tags', tags: 'vip' }), 'actions[0].tags'],
    ['21 tags', action({ type: 'add_contact_tags', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }), 'actions[0].tags'],
    ['a blank tag', action({ type: 'remove_contact_tags', tags: ['ok', ' '] }), 'actions[0].tags[1]'],
    ['a tag of 51 characters', action({ type: 'add_contact_tags', tags: ['x'.repeat(51)] }), 'actions[0].tags[0]'],
    ['a contact field rules may not set', action({ type: 'set_contact_field', field: 'phones', value: 'x' }), 'actions[0].field'],
    ['a contact field without a field', action({ type: 'set_contact_field', value: 'x' }), 'actions[0].field'],
    ['a boolean field set to text', action({ type: 'set_contact_field', field: 'opt_in_status', value: 'yes' }), 'actions[0].value'],
    ['an id field set to text', action({ type: 'set_contact_field', field: 'company_id', value: 'acme' }), 'actions[0].value'],
    ['a bad custom key to set', action({ type: 'set_contact_field', field: 'custom_fields.', value: 'x' }), 'actions[0].field'],
    ['a task without due minutes', action({ type: 'create_task', title: 'Call' }), 'actions[0].due_in_minutes'],
    ['a task due in -1 minutes', action({ type: 'create_task', title: 'Call', due_in_minutes: -1 }), 'actions[0].due_in_minutes'],
    ['a task assignee that is not a UUID', action({ type: 'create_task', title: 'Call', due_in_minutes: 5, assignee_id: 'bob' }), 'actions[0].assignee_id'],
    ['a task title of 201 characters', action({ type: 'create_task', title: 'x'.repeat(201), due_in_minutes: 5 }), 'actions[0].title'],
    ['a bot flow id that is not a UUID', action({ type: 'start_bot', bot_flow_id: 'welcome' }), 'actions[0].bot_flow_id'],
    ['a sequence id that is not a UUID', action({ type: 'start_sequence', sequence_id: 'drip' }), 'actions[0].sequence_id'],
    ['a sequence start without its sequence', action({ type: 'start_sequence' }), 'actions[0].sequence_id'],
    [
      'a stop of sequences with a key it does not take',
      action({ type: 'stop_sequences', sequence_id: '0b7e1c52-7d4c-4a44-9d55-2f6e1a1a1a1c' }),
      'actions[0].sequence_id',
    ],
    ['a webhook over http', action({ type: 'send_webhook', url: 'http://hooks.example.com' }), 'actions[0].url', /https/],
    ['a webhook address with credentials', action({ type: 'send_webhook', url: 'https://u:p@hooks.example.com' }), 'actions[0].url'],
    ['a short webhook secret', action({ type: 'send_webhook', url: 'https://hooks.example.com', secret: 'short' }), 'actions[0].secret'],
    ['a webhook secret that is not text', action({ type: 'send_webhook', url: 'https://hooks.example.com', secret: 5 }), 'actions[0].secret'],
    [
      'a wait of 0 minutes',
      {
        ...v,
        actions: [
          { type: 'wait', minutes: 0 },
          { type: 'add_note', text: 'x' },
        ],
      },
      'actions[0].minutes',
    ],
    [
      'a wait at the end',
      {
        ...v,
        actions: [
          { type: 'add_note', text: 'x' },
          { type: 'wait', minutes: 5 },
        ],
      },
      'actions[1]',
      /followed/,
    ],
    [
      'a deal stage that is blank',
      { ...v, event: 'deal.created', conditions: { all: [] }, actions: [{ type: 'set_deal_stage', stage: '' }] },
      'actions[0].stage',
    ],
  ];

  // Rows of three or four: each given whole, so Jest never takes a short one for a done callback.
  it.each(cases.map((row) => [row[0], row] as const))('should refuse %s with the path of what is wrong', (_name, [, input, path, message]) => {
    const refused = refusal(input);
    expect(refused.path).toBe(path);
    if (message) expect(refused.message).toMatch(message);
  });
});
