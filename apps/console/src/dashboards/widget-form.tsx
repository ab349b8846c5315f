import { type FormEvent, useState } from 'react';
import { FilterBuilder } from '../ui/filter-builder';
import { ErrorAlert } from '../ui/page';
import { AGGREGATIONS, FORMATS, RANGES, TABLES, TYPE_NAMES, type Widget, type WidgetConfig, WIDGET_TYPES } from './widgets.api';

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
      <FilterBuilder value={query} onChange={setQuery} />
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
