import { useId, useState } from 'react';

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

// A filter in the data API's grammar (`tags=cs.{vip}&created_at=gte.2026-01-01`): typed, or built a
// condition at a time; the API parses and checks it where it is saved.
export function FilterBuilder({ value, onChange, placeholder }: { value: string; onChange: (next: string) => void; placeholder?: string }) {
  const id = useId();
  const [part, setPart] = useState({ column: '', operator: 'eq', value: '' });
  function add() {
    if (!part.column.trim()) return;
    onChange([value, condition(part.column, part.operator, part.value)].filter(Boolean).join('&'));
    setPart({ column: '', operator: 'eq', value: '' });
  }
  return (
    <fieldset className="filter-builder">
      <legend>Filter</legend>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-column`}>Column</label>
          <input id={`${id}-column`} value={part.column} onChange={(event) => setPart({ ...part, column: event.target.value })} placeholder="tags" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-operator`}>Operator</label>
          <select id={`${id}-operator`} value={part.operator} onChange={(event) => setPart({ ...part, operator: event.target.value })}>
            {OPERATORS.map(([operator, label]) => (
              <option key={operator} value={operator}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-value`}>Value</label>
          <input id={`${id}-value`} value={part.value} onChange={(event) => setPart({ ...part, value: event.target.value })} dir="auto" />
        </div>
        <div className="field">
          <button type="button" onClick={add}>
            Add condition
          </button>
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-query`}>Filter in the data API&apos;s grammar</label>
        <input
          id={`${id}-query`}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          maxLength={4000}
          placeholder={placeholder ?? 'tags=cs.{vip}&status=eq.OPEN'}
        />
      </div>
    </fieldset>
  );
}
