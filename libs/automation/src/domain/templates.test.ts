import { DomainError } from '@engage/shared-kernel';
import { describeAction, describeActions, renderFor } from './dry-run';
import type { Snapshot } from './evaluator';
import { checkTemplate, escapeHtml, renderTemplate } from './templates';
import { timeFacts } from './time-facts';

const values: Record<string, unknown> = {
  'contact.first_name': 'Ada',
  'contact.last_name': null,
  'contact.source': '   ',
  'deal.value': 1200.5,
  'contact.custom_fields.vip': true,
  'contact.custom_fields.langs': ['en', 'ar'],
  'contact.custom_fields.address': { city: 'Cairo' },
};
const lookup = (field: string) => values[field];

describe('renderTemplate', () => {
  it('should put values in, with or without spaces inside the braces', () => {
    expect(renderTemplate('Hi {{contact.first_name}}, {{ contact.first_name }}!', lookup)).toBe('Hi Ada, Ada!');
  });

  it('should use the fallback for null, missing and blank values, and nothing without a fallback', () => {
    expect(renderTemplate('Hi {{contact.last_name | there}}', lookup)).toBe('Hi there');
    expect(renderTemplate('Hi {{contact.custom_fields.nick|friend}}', lookup)).toBe('Hi friend');
    expect(renderTemplate('From {{contact.source | somewhere}}', lookup)).toBe('From somewhere');
    expect(renderTemplate('Hi {{contact.last_name}}.', lookup)).toBe('Hi .');
    expect(renderTemplate('Hi {{contact.last_name | }}.', lookup)).toBe('Hi .');
    // A value that is there wins over the fallback.
    expect(renderTemplate('Hi {{contact.first_name | there}}', lookup)).toBe('Hi Ada');
  });

  it('should write numbers, booleans and lists out, and take an object as missing', () => {
    expect(renderTemplate('{{deal.value}} {{contact.custom_fields.vip}} {{contact.custom_fields.langs}}', lookup)).toBe('1200.5 true en, ar');
    expect(renderTemplate('{{contact.custom_fields.address | unknown}}', lookup)).toBe('unknown');
  });

  it('should never read an inserted value as a placeholder or a replacement pattern', () => {
    const sly = (field: string) => (field === 'contact.first_name' ? "{{contact.last_name | x}} $& $1 $' %s" : 'SECRET');
    expect(renderTemplate('Hi {{contact.first_name}}', sly)).toBe("Hi {{contact.last_name | x}} $& $1 $' %s");
  });

  it('should escape values and fallbacks when the text becomes HTML, and leave plain text as it is', () => {
    const html = () => '<img src=x onerror=alert(1)> & "q"';
    expect(renderTemplate('<p>{{contact.first_name}}</p>', html, escapeHtml)).toBe('<p>&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;</p>');
    expect(renderTemplate('{{contact.last_name | <b>you</b>}}', () => null, escapeHtml)).toBe('&lt;b&gt;you&lt;/b&gt;');
    expect(renderTemplate('{{contact.first_name}}', html)).toBe('<img src=x onerror=alert(1)> & "q"');
  });

  it('should leave text without placeholders unchanged', () => {
    expect(renderTemplate('Price: {50} {x}', lookup)).toBe('Price: {50} {x}');
  });
});

describe('checkTemplate', () => {
  const allowed = (field: string) => field.startsWith('contact.');
  const refusal = (text: string) => {
    try {
      checkTemplate(text, 'actions[2].text', allowed);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).message;
    }
    throw new Error('accepted');
  };

  it('should list the placeholders with their fallbacks', () => {
    expect(checkTemplate('Hi {{contact.first_name | there}}, {{contact.email}}', 'p', allowed)).toEqual([
      { field: 'contact.first_name', fallback: 'there' },
      { field: 'contact.email', fallback: undefined },
    ]);
  });

  it('should refuse a field it does not take, an unclosed or malformed placeholder, and a long fallback, naming the path', () => {
    expect(refusal('Hi {{deal.title}}')).toMatch(/^actions\[2\]\.text: \{\{deal\.title\}\} is not a field/);
    expect(refusal('Hi {{contact.first_name')).toMatch(/^actions\[2\]\.text: has a malformed placeholder/);
    expect(refusal('Hi {{contact.first_name | a | b}}')).toMatch(/malformed/);
    expect(refusal('Hi {{ }}')).toMatch(/malformed/);
    expect(refusal(`Hi {{contact.first_name | ${'x'.repeat(201)}}}`)).toMatch(/at most 200/);
  });
});

describe('timeFacts', () => {
  // Monday 2026-11-30 08:30 UTC is 10:30 in Cairo (UTC+2).
  const now = new Date('2026-11-30T08:30:00Z');
  // Open on Mondays from 10:00 to 11:00.
  const hours = [[[600, 660]], [], [], [], [], [], []] as [number, number][][];

  it("should give the weekday and business hours in the organization's time zone", () => {
    expect(timeFacts(now, 'UTC', hours)).toEqual({ weekday: 'mon', in_business_hours: false });
    expect(timeFacts(now, 'Africa/Cairo', hours)).toEqual({ weekday: 'mon', in_business_hours: true });
    expect(timeFacts(now, 'Pacific/Kiritimati', hours).weekday).toBe('mon');
    expect(timeFacts(new Date('2026-11-30T02:00:00Z'), 'America/New_York', hours)).toEqual({ weekday: 'sun', in_business_hours: false });
  });

  it('should count every hour as a business hour without a schedule', () => {
    expect(timeFacts(now, 'UTC', null).in_business_hours).toBe(true);
  });
});

describe('the dry run’s words', () => {
  const snapshot: Snapshot = {
    conversation: { id: 'c1' },
    contact: { id: 'k1', first_name: 'Ada', emails: ['ada@example.com'], phones: [] },
    time: { weekday: 'mon', in_business_hours: true },
  };

  it('should render texts as they would be sent, with the first email and phone', () => {
    expect(renderFor(snapshot, 'Hi {{contact.first_name}} <{{contact.email}}> {{contact.phone | no phone}}')).toBe('Hi Ada <ada@example.com> no phone');
    expect(describeAction({ type: 'send_message', text: 'Hi {{contact.first_name}}' }, snapshot)).toBe(
      'send "Hi Ada" into conversation c1 through its paced queue',
    );
  });

  it('should say nothing would happen to a record the subject lacks', () => {
    expect(describeAction({ type: 'set_deal_stage', stage: 'won' }, snapshot)).toBe('nothing: there is no deal to act on');
    expect(describeAction({ type: 'add_note', text: 'x' }, { time: snapshot.time })).toBe('nothing: there is no contact or deal to note on');
    expect(describeAction({ type: 'create_task', title: 'x', due_in_minutes: 5 }, { time: snapshot.time })).toBe(
      'nothing: there is no contact or deal to link the task to',
    );
  });

  it('should link a task to the deal and its contact, as the engine does', () => {
    expect(describeAction({ type: 'create_task', title: 'Call', due_in_minutes: 5 }, { ...snapshot, deal: { id: 'd1' } })).toBe(
      'create the task "Call" for deal d1 and contact k1, due in 5 minutes',
    );
  });

  it('should describe every action type', () => {
    const described = describeActions(
      [
        { type: 'assign_conversation', user_id: 'round_robin' },
        { type: 'set_conversation_status', status: 'RESOLVED' },
        { type: 'add_contact_tags', tags: ['a', 'b'] },
        { type: 'remove_contact_tags', tags: ['c'] },
        { type: 'set_contact_field', field: 'source', value: 'rule {{contact.first_name}}' },
        { type: 'assign_deal_owner', user_id: 'u1' },
        { type: 'add_note', text: 'Note for {{contact.first_name}}' },
        { type: 'create_task', title: 'Call', due_in_minutes: 30, assignee_id: 'u2' },
        { type: 'start_bot', bot_flow_id: 'b1' },
        { type: 'start_sequence', sequence_id: 's1' },
        { type: 'stop_sequences' },
        { type: 'send_webhook', url: 'https://hooks.example.com/x', secret: '****abcd' },
        { type: 'wait', minutes: 10 },
      ],
      snapshot,
    );
    expect(described.map((action) => action.would)).toEqual([
      'assign conversation c1 to the next online member (round robin)',
      'set the status of conversation c1 to RESOLVED',
      'add the tags a, b to contact k1',
      'remove the tags c from contact k1',
      'set source of contact k1 to "rule Ada"',
      'nothing: there is no deal to act on',
      'add the note "Note for Ada" to contact k1',
      'create the task "Call" for contact k1, due in 30 minutes, assigned to member u2',
      'start bot flow b1 in conversation c1',
      'enrol contact k1 on sequence s1',
      'end every running sequence of contact k1',
      'POST the event to https://hooks.example.com/x, signed with its secret',
      'wait 10 minutes, then run the actions after it if nothing ended the episode and the conditions still hold',
    ]);
  });
});
