import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../ui/page';
import { AGGREGATIONS, FORMATS, RANGES, TABLES, TYPE_NAMES, type Widget, type WidgetConfig, WIDGET_TYPES } from './widgets.api';

const OPERATORS = [
  ['eq', 'equals'],
  ['neq', 'is not'],
  ['gt', 'greater than'],
  ['gte', 'at least'],
  ['lt', 'less than'],
  ['lte', 'at most'],
  ['ilike', 'matches (use * as wildcard)'],
  ['cs', 'contains (lists such as tags)'],
  ['is', 'is (null, true, false)'],
] as const;

// Only what would change the meaning of a query string is escaped (%, & and +), so the filter stays
// readable: the API reads it as URL query parameters.
const escape = (text: string) => text.replace(/[%&+]/g, (character) => encodeURIComponent(character));

// One condition in the data API's grammar: column=operator.value (a list's value in braces).
export function condition(column: string, operator: string, value: string): string {
  const written = operator === 'cs' ? `{${value}}` : value;
  return `${escape(column.trim())}=${operator}.${escape(written)}`;
}

// Add or edit a widget: its type, for a custom one the table, aggregation and column, a filter
// written in the data API's grammar (typed, or built a condition at a time), the format and the
// date range. The API checks it all when it is saved and its refusal is shown here.
export function WidgetForm({
  widget,
  error,
  pending,
  onSave,
  onCancel,
}: {
  widget?: Widget;
  error: unknown;
  pending: boolean;
  onSave: (type: string, config: WidgetConfig) => void;
  onCancel: () => void;
}) {
  const config = widget?.widget_config ?? {};
  const [type, setType] = useState(widget?.widget_type ?? 'custom');
  const [range, setRange] = useState<string>(config.date_range ?? 'This Month');
  const [query, setQuery] = useState(config.query ?? '');
  const [part, setPart] = useState({ column: '', operator: 'eq', value: '' });
  function addCondition() {
    if (!part.column.trim()) return;
    setQuery((current) => [current, condition(part.column, part.operator, part.value)].filter(Boolean).join('&'));
    setPart({ column: '', operator: 'eq', value: '' });
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const next: WidgetConfig = { format: text('format') as WidgetConfig['format'], date_range: range as WidgetConfig['date_range'] };
    if (text('title')) next.title = text('title');
    if (query.trim()) next.query = query.trim();
    if (range === 'Custom Range') {
      next.start_date = text('start_date');
      next.end_date = text('end_date');
    }
    if (type === 'custom') {
      next.table = text('table');
      next.aggregation = text('aggregation');
      if (text('column')) next.column = text('column');
      if (text('date_column')) next.date_column = text('date_column');
    }
    onSave(type, next);
  }
  return (
    <form onSubmit={submit} className="widget-form" aria-label={widget ? 'Edit widget' : 'New widget'}>
      <div className="filters">
        <div className="field">
          <label htmlFor="widget-title">Title</label>
          <input id="widget-title" name="title" maxLength={100} defaultValue={config.title ?? ''} dir="auto" placeholder={TYPE_NAMES[type]} />
        </div>
        <div className="field">
          <label htmlFor="widget-type">Type</label>
          <select id="widget-type" value={type} onChange={(event) => setType(event.target.value)} disabled={!!widget}>
            {WIDGET_TYPES.map((name) => (
              <option key={name} value={name}>
                {TYPE_NAMES[name]}
              </option>
            ))}
          </select>
        </div>
        {type === 'custom' ? (
          <>
            <div className="field">
              <label htmlFor="widget-table">Table</label>
              <select id="widget-table" name="table" defaultValue={config.table ?? 'contacts'}>
                {TABLES.map((name) => (
                  <option key={name}>{name}</option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="widget-aggregation">Aggregation</label>
              <select id="widget-aggregation" name="aggregation" defaultValue={config.aggregation ?? 'Count'}>
                {AGGREGATIONS.map((name) => (
                  <option key={name}>{name}</option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="widget-column">Column</label>
              <input id="widget-column" name="column" defaultValue={config.column ?? ''} placeholder="rows" />
            </div>
            <div className="field">
              <label htmlFor="widget-date-column">Date column</label>
              <input id="widget-date-column" name="date_column" defaultValue={config.date_column ?? ''} placeholder="created_at" />
            </div>
          </>
        ) : null}
      </div>
      <fieldset className="filter-builder">
        <legend>Filter</legend>
        <div className="filters">
          <div className="field">
            <label htmlFor="filter-column">Column</label>
            <input id="filter-column" value={part.column} onChange={(event) => setPart({ ...part, column: event.target.value })} placeholder="tags" />
          </div>
          <div className="field">
            <label htmlFor="filter-operator">Operator</label>
            <select id="filter-operator" value={part.operator} onChange={(event) => setPart({ ...part, operator: event.target.value })}>
              {OPERATORS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="filter-value">Value</label>
            <input id="filter-value" value={part.value} onChange={(event) => setPart({ ...part, value: event.target.value })} dir="auto" />
          </div>
          <div className="field">
            <button type="button" onClick={addCondition}>
              Add condition
            </button>
          </div>
        </div>
        <div className="field">
          <label htmlFor="widget-query">Filter in the data API&apos;s grammar</label>
          <input
            id="widget-query"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            maxLength={2000}
            placeholder="tags=cs.{vip}&status=eq.OPEN"
          />
        </div>
      </fieldset>
      <div className="filters">
        <div className="field">
          <label htmlFor="widget-format">Format</label>
          <select id="widget-format" name="format" defaultValue={config.format ?? 'Number'}>
            {FORMATS.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="widget-range">Date range</label>
          <select id="widget-range" value={range} onChange={(event) => setRange(event.target.value)}>
            {RANGES.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </div>
        {range === 'Custom Range' ? (
          <>
            <div className="field">
              <label htmlFor="widget-start">From</label>
              <input id="widget-start" name="start_date" type="date" required defaultValue={config.start_date ?? ''} />
            </div>
            <div className="field">
              <label htmlFor="widget-end">To</label>
              <input id="widget-end" name="end_date" type="date" required defaultValue={config.end_date ?? ''} />
            </div>
          </>
        ) : null}
      </div>
      <ErrorAlert error={error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={pending}>
          {widget ? 'Save widget' : 'Add widget'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
