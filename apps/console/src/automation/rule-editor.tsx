import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../ui/page';
import { ACTION_EXAMPLES, ActionList } from './action-form';
import { type Condition, EVENTS, FIELDS, OPERATORS, type Rule, type RuleFields, TIMERS } from './rules.api';
import { refusedPath } from '../api/errors';

const LISTS = ['in', 'not_in', 'includes_any', 'includes_all'];
const NO_VALUE = ['is_set', 'is_empty'];

// A condition's value as typed: lists comma-separated, numbers and booleans as such.
function parseValue(operator: string, text: string): unknown {
  if (NO_VALUE.includes(operator)) return undefined;
  if (LISTS.includes(operator))
    return text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  if (text === 'true' || text === 'false') return text === 'true';
  if ((operator === 'greater_than' || operator === 'less_than') && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  return text;
}
const showValue = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : value === undefined || value === null ? '' : String(value));

// Only a flat group of plain conditions is edited row by row; a rule with nested groups is edited as JSON.
function flat(conditions: Rule['conditions']): { mode: 'all' | 'any'; rows: Condition[] } | null {
  const mode = conditions.any ? 'any' : 'all';
  const items = (conditions[mode] ?? []) as unknown[];
  if (!items.every((item) => item && typeof item === 'object' && 'field' in item)) return null;
  return { mode, rows: items as Condition[] };
}

// The editor of one rule: event, conditions and actions, saved through /rest/v1 whose validator
// answers a 400 naming the path of what is wrong; the message is shown by the part it names.
export function RuleEditor({
  rule,
  editable,
  error,
  pending,
  onSave,
}: {
  rule: Rule | null;
  editable: boolean;
  error: unknown;
  pending: boolean;
  onSave: (fields: RuleFields) => void;
}) {
  const [event, setEvent] = useState(rule?.event ?? 'message.received');
  const simple = flat(rule?.conditions ?? { all: [] });
  const [mode, setMode] = useState<'all' | 'any'>(simple?.mode ?? 'all');
  const [conditions, setConditions] = useState<Condition[]>(simple?.rows ?? []);
  const [conditionsJson, setConditionsJson] = useState(simple ? null : JSON.stringify(rule?.conditions, null, 2));
  const [actions, setActions] = useState<Rule['actions']>(rule?.actions ?? [{ ...ACTION_EXAMPLES.send_message }]);
  const [local, setLocal] = useState<string | null>(null);
  const path = refusedPath(error);
  const near = (prefix: string) =>
    path && (path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`)) ? <ErrorAlert error={error} /> : null;
  function submit(submitted: FormEvent<HTMLFormElement>) {
    submitted.preventDefault();
    setLocal(null);
    const form = new FormData(submitted.currentTarget);
    let parsedConditions: Rule['conditions'];
    try {
      parsedConditions = conditionsJson === null ? { [mode]: conditions } : JSON.parse(conditionsJson);
    } catch (problem) {
      setLocal(`The JSON does not parse: ${(problem as Error).message}`);
      return;
    }
    onSave({
      name: String(form.get('name') ?? ''),
      description: String(form.get('description') ?? ''),
      event,
      event_options: TIMERS.includes(event) ? { minutes: Number(form.get('minutes')) } : {},
      conditions: parsedConditions,
      actions,
      is_active: form.get('is_active') === 'on',
    });
  }
  const setRow = (index: number, change: Partial<Condition>) => setConditions(conditions.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <form onSubmit={submit} aria-label="Rule" className="rule-editor">
      <fieldset className="plain" disabled={!editable}>
        <div className="filters">
          <div className="field grow">
            <label htmlFor="rule-name">Name</label>
            <input id="rule-name" name="name" required maxLength={200} defaultValue={rule?.name ?? ''} dir="auto" />
          </div>
          <div className="field">
            <label htmlFor="rule-event">Event</label>
            <select id="rule-event" value={event} onChange={(change) => setEvent(change.target.value)}>
              {EVENTS.map((name) => (
                <option key={name}>{name}</option>
              ))}
            </select>
          </div>
          {TIMERS.includes(event) ? (
            <div className="field">
              <label htmlFor="rule-minutes">After (minutes)</label>
              <input id="rule-minutes" name="minutes" type="number" min={10} max={43200} required defaultValue={rule?.event_options.minutes ?? 60} />
            </div>
          ) : null}
          <div className="field checkbox">
            <label>
              <input type="checkbox" name="is_active" defaultChecked={rule?.is_active ?? true} /> Active
            </label>
          </div>
        </div>
        {near('name')}
        {near('event')}
        {near('event_options')}
        <div className="field">
          <label htmlFor="rule-description">Description</label>
          <input id="rule-description" name="description" maxLength={2000} defaultValue={rule?.description ?? ''} dir="auto" />
        </div>
        <fieldset className="filter-builder">
          <legend>Conditions</legend>
          {conditionsJson === null ? (
            <>
              <div className="actions" role="radiogroup" aria-label="Match">
                <label>
                  <input type="radio" checked={mode === 'all'} onChange={() => setMode('all')} /> All of these
                </label>
                <label>
                  <input type="radio" checked={mode === 'any'} onChange={() => setMode('any')} /> Any of these
                </label>
              </div>
              <datalist id="condition-fields">
                {FIELDS.map((field) => (
                  <option key={field} value={field} />
                ))}
              </datalist>
              {conditions.length === 0 ? <p className="muted small">No conditions: the rule runs on every {event} event.</p> : null}
              {conditions.map((row, index) => (
                <div className="filters" key={index} role="group" aria-label={`Condition ${index + 1}`}>
                  <div className="field">
                    <label htmlFor={`condition-field-${index}`}>Field</label>
                    <input
                      id={`condition-field-${index}`}
                      list="condition-fields"
                      value={row.field}
                      onChange={(change) => setRow(index, { field: change.target.value })}
                    />
                  </div>
                  <div className="field">
                    <label htmlFor={`condition-operator-${index}`}>Operator</label>
                    <select
                      id={`condition-operator-${index}`}
                      value={row.operator}
                      onChange={(change) => setRow(index, { operator: change.target.value, value: parseValue(change.target.value, showValue(row.value)) })}
                    >
                      {OPERATORS.map((name) => (
                        <option key={name}>{name}</option>
                      ))}
                    </select>
                  </div>
                  {NO_VALUE.includes(row.operator) ? null : (
                    <div className="field">
                      <label htmlFor={`condition-value-${index}`}>Value</label>
                      <input
                        id={`condition-value-${index}`}
                        value={showValue(row.value)}
                        onChange={(change) => setRow(index, { value: parseValue(row.operator, change.target.value) })}
                        dir="auto"
                      />
                    </div>
                  )}
                  <div className="field">
                    <button
                      type="button"
                      onClick={() => setConditions(conditions.filter((_, at) => at !== index))}
                      aria-label={`Remove condition ${index + 1}`}
                    >
                      Remove
                    </button>
                  </div>
                </div>
              ))}
              <button type="button" onClick={() => setConditions([...conditions, { field: 'message.content', operator: 'contains', value: '' }])}>
                Add condition
              </button>
            </>
          ) : (
            <div className="field">
              <label htmlFor="rule-conditions">Conditions (JSON: this rule has groups of conditions)</label>
              <textarea id="rule-conditions" rows={8} value={conditionsJson} onChange={(change) => setConditionsJson(change.target.value)} spellCheck={false} />
            </div>
          )}
          {near('conditions')}
        </fieldset>
        <fieldset className="filter-builder">
          <legend>Actions (run in order)</legend>
          <ActionList actions={actions} onChange={setActions} error={error} path={path} />
          {path === 'actions' ? <ErrorAlert error={error} /> : null}
        </fieldset>
      </fieldset>
      {local ? (
        <div role="alert" className="alert">
          {local}
        </div>
      ) : null}
      {error && !['name', 'event', 'event_options', 'conditions', 'actions'].some((prefix) => path?.startsWith(prefix)) ? <ErrorAlert error={error} /> : null}
      {editable ? (
        <button type="submit" className="primary" disabled={pending}>
          Save rule
        </button>
      ) : null}
    </form>
  );
}
