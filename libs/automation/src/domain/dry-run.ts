import type { Action } from './actions';
import { ACTION_TARGETS, type RecordKind } from './catalogue';
import { type Snapshot, valueOf } from './evaluator';
import { renderTemplate } from './templates';

// What each action would do on the subject as it is now, in words, for the dry run; texts rendered
// as they would be sent. Nothing is done.

// A text's placeholders filled from the snapshot: `contact.email` and `contact.phone` are the first
// of the contact's emails and phones.
export function renderFor(snapshot: Snapshot, text: string): string {
  return renderTemplate(text, (field) => {
    if (field === 'contact.email') return (snapshot.contact?.emails as unknown[] | undefined)?.[0];
    if (field === 'contact.phone') return (snapshot.contact?.phones as unknown[] | undefined)?.[0];
    return valueOf(snapshot, field);
  });
}

const idOf = (snapshot: Snapshot, record: RecordKind) => snapshot[record]?.id as string | undefined;
const who = (user: string) => (user === 'round_robin' ? 'the next online member (round robin)' : `member ${user}`);

export function describeAction(action: Action, snapshot: Snapshot): string {
  const target = ACTION_TARGETS[action.type];
  if (target !== null && !snapshot[target]) return `nothing: there is no ${target} to act on`;
  const conversation = idOf(snapshot, 'conversation');
  const contact = idOf(snapshot, 'contact');
  const deal = idOf(snapshot, 'deal');
  switch (action.type) {
    case 'send_message':
      return `send ${JSON.stringify(renderFor(snapshot, action.text))}${action.media_url ? ` with media ${action.media_url}` : ''} into conversation ${conversation} through its paced queue`;
    case 'assign_conversation':
      return `assign conversation ${conversation} to ${who(action.user_id)}`;
    case 'set_conversation_status':
      return `set the status of conversation ${conversation} to ${action.status}`;
    case 'add_contact_tags':
      return `add the tags ${action.tags.join(', ')} to contact ${contact}`;
    case 'remove_contact_tags':
      return `remove the tags ${action.tags.join(', ')} from contact ${contact}`;
    case 'set_contact_field': {
      const value = typeof action.value === 'string' ? JSON.stringify(renderFor(snapshot, action.value)) : JSON.stringify(action.value);
      return `set ${action.field} of contact ${contact} to ${value}`;
    }
    case 'set_deal_stage':
      return `move deal ${deal} to stage ${action.stage}`;
    case 'assign_deal_owner':
      return `make ${who(action.user_id)} the owner of deal ${deal}`;
    case 'add_note': {
      const on = deal ? `deal ${deal}` : contact ? `contact ${contact}` : undefined;
      return on ? `add the note ${JSON.stringify(renderFor(snapshot, action.text))} to ${on}` : 'nothing: there is no contact or deal to note on';
    }
    case 'create_task': {
      const title = JSON.stringify(renderFor(snapshot, action.title));
      // The engine links the task to the deal and the contact it has, and refuses without either.
      const about = [deal ? `deal ${deal}` : undefined, contact ? `contact ${contact}` : undefined].filter(Boolean).join(' and ');
      if (!about) return 'nothing: there is no contact or deal to link the task to';
      return `create the task ${title} for ${about}, due in ${action.due_in_minutes} minutes${action.assignee_id ? `, assigned to member ${action.assignee_id}` : ''}`;
    }
    case 'start_bot':
      return `start bot flow ${action.bot_flow_id} in conversation ${conversation}`;
    case 'start_sequence':
      return contact ? `enrol contact ${contact} on sequence ${action.sequence_id}` : 'nothing: there is no contact to enrol';
    case 'stop_sequences':
      return contact ? `end every running sequence of contact ${contact}` : 'nothing: there is no contact';
    case 'send_webhook':
      return `POST the event to ${action.url}${action.secret ? ', signed with its secret' : ''}`;
    case 'wait':
      return `wait ${action.minutes} minutes, then run the actions after it if nothing ended the episode and the conditions still hold`;
  }
}

export const describeActions = (actions: readonly Action[], snapshot: Snapshot) =>
  actions.map((action) => ({ type: action.type, would: describeAction(action, snapshot) }));
