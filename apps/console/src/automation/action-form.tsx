import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useId, useState } from 'react';
import { memberName, useMembers } from '../deals/deals.api';
import { ErrorAlert } from '../ui/page';
import { FLOWS, listFlows } from './bots.api';
import './bots.css';

type Action = Record<string, unknown>;

// A new action of each type with the fields it needs (docs/automation.md, "Actions").
export const ACTION_EXAMPLES: Record<string, Action> = {
  send_message: { type: 'send_message', text: 'Hi {{contact.first_name | there}}, thanks for writing!' },
  assign_conversation: { type: 'assign_conversation', user_id: 'round_robin' },
  set_conversation_status: { type: 'set_conversation_status', status: 'PENDING' },
  add_contact_tags: { type: 'add_contact_tags', tags: [] },
  remove_contact_tags: { type: 'remove_contact_tags', tags: [] },
  set_contact_field: { type: 'set_contact_field', field: 'source', value: '' },
  set_deal_stage: { type: 'set_deal_stage', stage: '' },
  assign_deal_owner: { type: 'assign_deal_owner', user_id: 'round_robin' },
  add_note: { type: 'add_note', text: '' },
  create_task: { type: 'create_task', title: '', due_in_minutes: 60 },
  start_bot: { type: 'start_bot', bot_flow_id: '' },
  send_webhook: { type: 'send_webhook', url: 'https://' },
  wait: { type: 'wait', minutes: 30 },
};
const TYPE_NAMES: Record<string, string> = {
  send_message: 'Send a message',
  assign_conversation: 'Assign the conversation',
  set_conversation_status: 'Set the conversation status',
  add_contact_tags: 'Add tags to the contact',
  remove_contact_tags: 'Remove tags from the contact',
  set_contact_field: 'Set a contact field',
  set_deal_stage: 'Move the deal to a stage',
  assign_deal_owner: 'Give the deal an owner',
  add_note: 'Add a note',
  create_task: 'Create a task',
  start_bot: 'Start a bot flow',
  send_webhook: 'Send a webhook',
  wait: 'Wait',
};
const CONTACT_FIELDS = ['first_name', 'last_name', 'source', 'description', 'opt_in_status', 'company_id', 'assignee_id', 'custom_fields.'];

// The index of the action a refusal's path names (`actions[2].text` -> 2), or null.
export const actionIndexOf = (path: string | null): number | null => {
  const match = path ? /^actions\[(\d+)\]/.exec(path) : null;
  return match ? Number(match[1]) : null;
};

// The rule's actions, one form each in the order they run: a type and that type's fields. The
// API's refusal naming `actions[i]...` is shown inside action i.
export function ActionList({
  actions,
  onChange,
  error,
  path,
}: {
  actions: Action[];
  onChange: (actions: Action[]) => void;
  error: unknown;
  path: string | null;
}) {
  const [newType, setNewType] = useState('send_message');
  const refused = actionIndexOf(path);
  const set = (index: number, action: Action) => onChange(actions.map((candidate, at) => (at === index ? action : candidate)));
  const move = (from: number, to: number) => {
    const order = [...actions];
    const [moved] = order.splice(from, 1);
    order.splice(to, 0, moved);
    onChange(order);
  };
  return (
    <>
      {actions.length === 0 ? <p className="muted small">No actions yet: a rule needs at least one.</p> : null}
      {actions.map((action, index) => (
        <ActionForm
          key={index}
          index={index}
          action={action}
          count={actions.length}
          onChange={(changed) => set(index, changed)}
          onMove={(step) => move(index, index + step)}
          onRemove={() => onChange(actions.filter((_, at) => at !== index))}
          alert={refused === index ? <ErrorAlert error={error} /> : null}
        />
      ))}
      <div className="filters">
        <div className="field">
          <label htmlFor="rule-new-action">Type of the new action</label>
          <select id="rule-new-action" value={newType} onChange={(event) => setNewType(event.target.value)}>
            {Object.keys(ACTION_EXAMPLES).map((type) => (
              <option key={type} value={type}>
                {TYPE_NAMES[type]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <button type="button" onClick={() => onChange([...actions, { ...ACTION_EXAMPLES[newType] }])}>
            Add action
          </button>
        </div>
      </div>
    </>
  );
}

function ActionForm({
  index,
  action,
  count,
  onChange,
  onMove,
  onRemove,
  alert,
}: {
  index: number;
  action: Action;
  count: number;
  onChange: (action: Action) => void;
  onMove: (step: number) => void;
  onRemove: () => void;
  alert: ReactNode;
}) {
  const uid = useId();
  const type = String(action.type ?? '');
  const label = `Action ${index + 1}`;
  const set = (key: string, value: unknown) => {
    const next = { ...action };
    if (value === undefined || value === '') delete next[key];
    else next[key] = value;
    onChange(next);
  };
  const text = (key: string) => (typeof action[key] === 'string' ? (action[key] as string) : '');
  const field = (key: string, name: string, input: ReactNode) => (
    <div className="field" key={key}>
      <label htmlFor={`${uid}-${key}`}>{name}</label>
      {input}
    </div>
  );
  const textInput = (key: string, name: string, options: { area?: boolean; keepEmpty?: boolean; type?: string } = {}) =>
    field(
      key,
      name,
      options.area ? (
        <textarea
          id={`${uid}-${key}`}
          rows={2}
          dir="auto"
          value={text(key)}
          onChange={(event) => set(key, event.target.value || (options.keepEmpty ? '' : undefined))}
        />
      ) : (
        <input
          id={`${uid}-${key}`}
          type={options.type ?? 'text'}
          dir="auto"
          value={text(key)}
          onChange={(event) => (options.keepEmpty ? onChange({ ...action, [key]: event.target.value }) : set(key, event.target.value))}
        />
      ),
    );
  const numberInput = (key: string, name: string) =>
    field(
      key,
      name,
      <input
        id={`${uid}-${key}`}
        type="number"
        value={typeof action[key] === 'number' ? String(action[key]) : ''}
        onChange={(event) => set(key, event.target.value === '' ? undefined : Number(event.target.value))}
      />,
    );
  return (
    <fieldset className={`bot-node${alert ? ' has-problem' : ''}`} aria-invalid={alert ? true : undefined}>
      <legend>
        {label}: {TYPE_NAMES[type] ?? type}
      </legend>
      {alert}
      <div className="filters">
        <div className="field">
          <label htmlFor={`${uid}-type`}>Type</label>
          <select id={`${uid}-type`} value={type} onChange={(event) => onChange({ ...ACTION_EXAMPLES[event.target.value] })}>
            {type in ACTION_EXAMPLES ? null : <option value={type}>{type}</option>}
            {Object.keys(ACTION_EXAMPLES).map((candidate) => (
              <option key={candidate} value={candidate}>
                {TYPE_NAMES[candidate]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <span className="actions">
            <button type="button" onClick={() => onMove(-1)} disabled={index === 0} aria-label={`Move action ${index + 1} earlier`}>
              ↑
            </button>
            <button type="button" onClick={() => onMove(1)} disabled={index === count - 1} aria-label={`Move action ${index + 1} later`}>
              ↓
            </button>
            <button type="button" onClick={onRemove} aria-label={`Remove action ${index + 1}`}>
              Remove
            </button>
          </span>
        </div>
      </div>
      {type === 'send_message' ? (
        <>
          {textInput('text', 'Text', { area: true, keepEmpty: true })}
          {textInput('media_url', 'Media URL (https, optional)')}
        </>
      ) : null}
      {type === 'assign_conversation' || type === 'assign_deal_owner'
        ? field('user_id', 'Assign to', <MemberSelect id={`${uid}-user_id`} value={text('user_id')} roundRobin onChange={(value) => set('user_id', value)} />)
        : null}
      {type === 'set_conversation_status'
        ? field(
            'status',
            'Status',
            <select id={`${uid}-status`} value={text('status')} onChange={(event) => set('status', event.target.value)}>
              {['OPEN', 'PENDING', 'RESOLVED'].map((status) => (
                <option key={status}>{status}</option>
              ))}
            </select>,
          )
        : null}
      {type === 'add_contact_tags' || type === 'remove_contact_tags'
        ? field(
            'tags',
            'Tags (comma-separated)',
            <TagsInput id={`${uid}-tags`} value={(action.tags as string[] | undefined) ?? []} onChange={(tags) => onChange({ ...action, tags })} />,
          )
        : null}
      {type === 'set_contact_field' ? <ContactFieldInputs uid={uid} action={action} onChange={onChange} /> : null}
      {type === 'set_deal_stage' ? textInput('stage', 'Stage (its key or name)', { keepEmpty: true }) : null}
      {type === 'add_note' ? textInput('text', 'Text', { area: true, keepEmpty: true }) : null}
      {type === 'create_task' ? (
        <div className="filters">
          {textInput('title', 'Title', { keepEmpty: true })}
          {numberInput('due_in_minutes', 'Due in (minutes)')}
          {field(
            'assignee_id',
            'Assignee (optional)',
            <MemberSelect id={`${uid}-assignee_id`} value={text('assignee_id')} onChange={(value) => set('assignee_id', value || undefined)} />,
          )}
        </div>
      ) : null}
      {type === 'start_bot'
        ? field(
            'bot_flow_id',
            'Bot flow',
            <FlowSelect id={`${uid}-bot_flow_id`} value={text('bot_flow_id')} onChange={(value) => onChange({ ...action, bot_flow_id: value })} />,
          )
        : null}
      {type === 'send_webhook' ? (
        <div className="filters">
          {textInput('url', 'URL (https)', { keepEmpty: true })}
          {textInput('secret', 'Signing secret (optional, 16 characters or more)', { type: 'password' })}
        </div>
      ) : null}
      {type === 'wait' ? numberInput('minutes', 'Minutes') : null}
    </fieldset>
  );
}

function MemberSelect({ id, value, roundRobin = false, onChange }: { id: string; value: string; roundRobin?: boolean; onChange: (value: string) => void }) {
  const members = useMembers();
  const known = members.data ? [...members.data.keys()] : [];
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
      {roundRobin ? <option value="round_robin">Round robin (the next online member)</option> : <option value="">Nobody</option>}
      {value && value !== 'round_robin' && !known.includes(value) ? <option value={value}>{value}</option> : null}
      {known.map((member) => (
        <option key={member} value={member}>
          {memberName(members.data, member)}
        </option>
      ))}
    </select>
  );
}

function FlowSelect({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  const flows = useQuery({ queryKey: FLOWS, queryFn: listFlows });
  return (
    <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">Choose a flow…</option>
      {(flows.data ?? []).map((flow) => (
        <option key={flow.id} value={flow.id}>
          {flow.name}
          {flow.published_version ? '' : ' (not published)'}
        </option>
      ))}
    </select>
  );
}

function TagsInput({ id, value, onChange }: { id: string; value: string[]; onChange: (value: string[]) => void }) {
  const [draft, setDraft] = useState(value.join(', '));
  return (
    <input
      id={id}
      dir="auto"
      value={draft}
      onChange={(event) => {
        setDraft(event.target.value);
        onChange(
          event.target.value
            .split(',')
            .map((tag) => tag.trim())
            .filter(Boolean),
        );
      }}
    />
  );
}

// A contact field and its value: text (a template), a number, yes/no, or nothing (null clears it).
function ContactFieldInputs({ uid, action, onChange }: { uid: string; action: Action; onChange: (action: Action) => void }) {
  const value = action.value;
  const kind = value === null ? 'null' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'text';
  const listId = `${uid}-fields`;
  return (
    <div className="filters">
      <div className="field">
        <label htmlFor={`${uid}-field`}>Field</label>
        <input
          id={`${uid}-field`}
          list={listId}
          value={String(action.field ?? '')}
          spellCheck={false}
          onChange={(event) => onChange({ ...action, field: event.target.value })}
        />
        <datalist id={listId}>
          {CONTACT_FIELDS.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </div>
      <div className="field">
        <label htmlFor={`${uid}-kind`}>Kind of value</label>
        <select
          id={`${uid}-kind`}
          value={kind}
          onChange={(event) => {
            const next = event.target.value;
            onChange({ ...action, value: next === 'null' ? null : next === 'number' ? 0 : next === 'boolean' ? true : '' });
          }}
        >
          <option value="text">Text</option>
          <option value="number">Number</option>
          <option value="boolean">Yes or no</option>
          <option value="null">Nothing (clear it)</option>
        </select>
      </div>
      {kind === 'null' ? null : (
        <div className="field grow">
          <label htmlFor={`${uid}-value`}>Value</label>
          {kind === 'boolean' ? (
            <select id={`${uid}-value`} value={String(value)} onChange={(event) => onChange({ ...action, value: event.target.value === 'true' })}>
              <option value="true">Yes</option>
              <option value="false">No</option>
            </select>
          ) : (
            <input
              id={`${uid}-value`}
              type={kind === 'number' ? 'number' : 'text'}
              dir="auto"
              value={String(value ?? '')}
              onChange={(event) => onChange({ ...action, value: kind === 'number' ? Number(event.target.value) : event.target.value })}
            />
          )}
        </div>
      )}
    </div>
  );
}
