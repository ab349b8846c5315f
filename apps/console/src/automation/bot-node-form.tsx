import { type ReactNode, useId, useState } from 'react';
import { type BranchCase, type Choice, type FlowNode, VALIDATIONS } from './bots.api';
import { EdgeSelect, JsonArea, ListInput } from './bot-form-fields';

// One node's form: its id, the fields of its type (docs/automation.md, "Nodes") and its edges as
// selects of the flow's node ids. Empty optional fields are left out of the node (the API refuses
// unknown keys and checks what is there).
export function NodeForm({
  node,
  ids,
  isStart,
  problems,
  editable,
  onChange,
  onRename,
  onRemove,
  onMakeStart,
}: {
  node: FlowNode;
  ids: string[];
  isStart: boolean;
  problems: string[];
  editable: boolean;
  onChange: (node: FlowNode) => void;
  onRename: (id: string) => void;
  onRemove: () => void;
  onMakeStart: () => void;
}) {
  const uid = useId();
  const [draftId, setDraftId] = useState(node.id);
  const set = (key: string, value: unknown) => {
    const next: FlowNode = { ...node };
    if (value === undefined || value === '') delete next[key];
    else next[key] = value;
    onChange(next);
  };
  const text = (key: string) => (typeof node[key] === 'string' ? (node[key] as string) : '');
  const field = (key: string, label: string, input: ReactNode) => (
    <div className="field" key={key}>
      <label htmlFor={`${uid}-${key}`}>{label}</label>
      {input}
    </div>
  );
  const textInput = (key: string, label: string, options: { area?: boolean; keepEmpty?: boolean } = {}) =>
    field(
      key,
      label,
      options.area ? (
        <textarea
          id={`${uid}-${key}`}
          value={text(key)}
          rows={2}
          dir="auto"
          disabled={!editable}
          onChange={(event) => set(key, event.target.value || (options.keepEmpty ? '' : undefined))}
        />
      ) : (
        <input id={`${uid}-${key}`} value={text(key)} dir="auto" disabled={!editable} onChange={(event) => set(key, event.target.value)} />
      ),
    );
  const numberInput = (key: string, label: string) =>
    field(
      key,
      label,
      <input
        id={`${uid}-${key}`}
        type="number"
        value={typeof node[key] === 'number' ? String(node[key]) : ''}
        disabled={!editable}
        onChange={(event) => set(key, event.target.value === '' ? undefined : Number(event.target.value))}
      />,
    );
  const edge = (key: string, label: string) =>
    field(
      key,
      label,
      <EdgeSelect id={`${uid}-${key}`} value={text(key)} ids={ids} self={node.id} disabled={!editable} onChange={(value) => set(key, value)} />,
    );
  const legend = `Node ${node.id} (${node.type.replace('_', ' ')})${isStart ? ', start' : ''}`;
  return (
    <fieldset className={`bot-node${problems.length > 0 ? ' has-problem' : ''}`} id={`node-${node.id}`} aria-invalid={problems.length > 0 || undefined}>
      <legend>{legend}</legend>
      {problems.length > 0 ? (
        <div role="alert" className="alert">
          <ul>
            {problems.map((problem) => (
              <li key={problem} dir="auto">
                {problem}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="filters">
        <div className="field">
          <label htmlFor={`${uid}-id`}>Node id</label>
          <input
            id={`${uid}-id`}
            value={draftId}
            disabled={!editable}
            spellCheck={false}
            onChange={(event) => setDraftId(event.target.value)}
            onBlur={() => (draftId && draftId !== node.id && !ids.includes(draftId) ? onRename(draftId) : setDraftId(node.id))}
          />
        </div>
        {editable ? (
          <div className="field">
            <span className="actions">
              {isStart ? null : (
                <button type="button" onClick={onMakeStart}>
                  Start here
                </button>
              )}
              <button type="button" onClick={onRemove} aria-label={`Remove node ${node.id}`}>
                Remove
              </button>
            </span>
          </div>
        ) : null}
      </div>
      {node.type === 'message' ? (
        <>
          {textInput('text', 'Text', { area: true, keepEmpty: true })}
          <div className="filters">
            {textInput('media_url', 'Media URL (https)')}
            {edge('next', 'Next')}
          </div>
        </>
      ) : null}
      {node.type === 'ask' ? (
        <AskFields node={node} uid={uid} ids={ids} editable={editable} set={set} textInput={textInput} numberInput={numberInput} edge={edge} />
      ) : null}
      {node.type === 'branch' ? <BranchFields node={node} uid={uid} ids={ids} editable={editable} set={set} edge={edge} /> : null}
      {node.type === 'set_field' ? (
        <>
          <div className="filters">
            {textInput('field', 'Field (variables.<name> or contact.<field>)')}
            {textInput('value', 'Value')}
            {edge('next', 'Next')}
          </div>
        </>
      ) : null}
      {node.type === 'add_tags' ? (
        <>
          {field(
            'tags',
            'Tags (comma-separated)',
            <ListInput id={`${uid}-tags`} value={(node.tags as string[] | undefined) ?? []} disabled={!editable} onChange={(tags) => set('tags', tags)} />,
          )}
          {edge('next', 'Next')}
        </>
      ) : null}
      {node.type === 'webhook' ? (
        <>
          <div className="filters">
            {textInput('url', 'URL (https)')}
            {edge('next', 'Next')}
            {edge('on_error', 'On error')}
          </div>
        </>
      ) : null}
      {node.type === 'handoff' ? (
        <>
          {field(
            'assignee',
            'Assignee (a member id, round_robin, or empty for nobody)',
            <input
              id={`${uid}-assignee`}
              value={typeof node.assignee === 'string' ? node.assignee : ''}
              disabled={!editable}
              spellCheck={false}
              onChange={(event) => onChange({ ...node, assignee: event.target.value.trim() === '' ? null : event.target.value.trim() })}
            />,
          )}
          {textInput('note', 'Note', { area: true })}
        </>
      ) : null}
      {node.type === 'end' ? textInput('text', 'Text', { area: true }) : null}
    </fieldset>
  );
}

type Set = (key: string, value: unknown) => void;

function AskFields({
  node,
  uid,
  ids,
  editable,
  set,
  textInput,
  numberInput,
  edge,
}: {
  node: FlowNode;
  uid: string;
  ids: string[];
  editable: boolean;
  set: Set;
  textInput: (key: string, label: string, options?: { area?: boolean; keepEmpty?: boolean }) => ReactNode;
  numberInput: (key: string, label: string) => ReactNode;
  edge: (key: string, label: string) => ReactNode;
}) {
  const choices = (node.choices as Choice[] | undefined) ?? [];
  const setChoice = (index: number, change: Partial<Choice>) =>
    set(
      'choices',
      choices.map((choice, at) => {
        if (at !== index) return choice;
        const next: Choice = { ...choice, ...change };
        if (!next.value) delete next.value;
        if (!next.next) delete next.next;
        return next;
      }),
    );
  return (
    <>
      {textInput('text', 'Question', { area: true, keepEmpty: true })}
      <div className="field">
        <label htmlFor={`${uid}-validate`}>Expected answer</label>
        <select
          id={`${uid}-validate`}
          value={String(node.validate ?? 'text')}
          disabled={!editable}
          onChange={(event) => {
            set('validate', event.target.value);
          }}
        >
          {VALIDATIONS.map((validation) => (
            <option key={validation} value={validation}>
              {validation}
            </option>
          ))}
        </select>
      </div>
      {node.validate === 'choice' ? (
        <fieldset className="plain">
          <legend>Choices of {node.id}</legend>
          {choices.map((choice, index) => (
            <div className="filters" role="group" aria-label={`Choice ${index + 1} of ${node.id}`} key={index}>
              <div className="field">
                <label htmlFor={`${uid}-choice-${index}-label`}>Label</label>
                <input
                  id={`${uid}-choice-${index}-label`}
                  value={choice.label}
                  dir="auto"
                  disabled={!editable}
                  onChange={(event) => setChoice(index, { label: event.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${uid}-choice-${index}-value`}>Value</label>
                <input
                  id={`${uid}-choice-${index}-value`}
                  value={choice.value ?? ''}
                  dir="auto"
                  disabled={!editable}
                  onChange={(event) => setChoice(index, { value: event.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${uid}-choice-${index}-next`}>Goes to</label>
                <EdgeSelect
                  id={`${uid}-choice-${index}-next`}
                  value={choice.next ?? ''}
                  ids={ids}
                  self={node.id}
                  disabled={!editable}
                  onChange={(next) => setChoice(index, { next })}
                />
              </div>
              {editable ? (
                <div className="field">
                  <button
                    type="button"
                    onClick={() =>
                      set(
                        'choices',
                        choices.filter((_, at) => at !== index),
                      )
                    }
                  >
                    Remove choice
                  </button>
                </div>
              ) : null}
            </div>
          ))}
          {editable ? (
            <button type="button" onClick={() => set('choices', [...choices, { label: '' }])}>
              Add choice
            </button>
          ) : null}
        </fieldset>
      ) : null}
      <div className="filters">
        {textInput('save_as', 'Save the answer as (variables.<name> or contact.<field>)')}
        {textInput('retry_text', 'Retry text')}
      </div>
      <div className="filters">
        {numberInput('max_retries', 'Retries at most')}
        {numberInput('timeout_minutes', 'Timeout (minutes)')}
        {edge('on_timeout', 'On timeout')}
        {edge('next', 'Next')}
      </div>
    </>
  );
}

function BranchFields({
  node,
  uid,
  ids,
  editable,
  set,
  edge,
}: {
  node: FlowNode;
  uid: string;
  ids: string[];
  editable: boolean;
  set: Set;
  edge: (key: string, label: string) => ReactNode;
}) {
  const cases = (node.cases as BranchCase[] | undefined) ?? [];
  const setCase = (index: number, change: Partial<BranchCase>) =>
    set(
      'cases',
      cases.map((item, at) => {
        if (at !== index) return item;
        const next = { ...item, ...change };
        if (!next.next) delete next.next;
        return next;
      }),
    );
  return (
    <>
      {cases.map((item, index) => (
        <div role="group" aria-label={`Case ${index + 1} of ${node.id}`} className="filters" key={index}>
          <div className="field grow">
            <label htmlFor={`${uid}-case-${index}`}>Conditions (JSON, the rules&apos; grammar)</label>
            <JsonArea id={`${uid}-case-${index}`} value={item.conditions} disabled={!editable} onChange={(conditions) => setCase(index, { conditions })} />
          </div>
          <div className="field">
            <label htmlFor={`${uid}-case-${index}-next`}>Goes to</label>
            <EdgeSelect
              id={`${uid}-case-${index}-next`}
              value={item.next ?? ''}
              ids={ids}
              self={node.id}
              disabled={!editable}
              onChange={(next) => setCase(index, { next })}
            />
          </div>
          {editable ? (
            <div className="field">
              <button
                type="button"
                onClick={() =>
                  set(
                    'cases',
                    cases.filter((_, at) => at !== index),
                  )
                }
              >
                Remove case
              </button>
            </div>
          ) : null}
        </div>
      ))}
      {editable ? (
        <button type="button" onClick={() => set('cases', [...cases, { conditions: { all: [] } }])}>
          Add case
        </button>
      ) : null}
      {edge('default', 'Otherwise')}
    </>
  );
}
