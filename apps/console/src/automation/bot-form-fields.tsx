import { useState } from 'react';

// The small fields the node forms share: an edge as a select of the flow's node ids, a list of
// words, and a JSON value (a branch's conditions).
export function EdgeSelect({
  id,
  value,
  ids,
  self,
  disabled,
  onChange,
}: {
  id: string;
  value: string;
  ids: string[];
  self: string;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  // A target that names no node (an edge left from a removed node) stays visible, so the publish
  // refusal that names it can be seen and fixed.
  const options = value && !ids.includes(value) ? [...ids, value] : ids;
  return (
    <select id={id} value={value} disabled={disabled} onChange={(event) => onChange(event.target.value)}>
      <option value="">(none)</option>
      {options.map((candidate) => (
        <option key={candidate} value={candidate}>
          {candidate}
          {candidate === self ? ' (itself)' : ''}
        </option>
      ))}
    </select>
  );
}

export function ListInput({ id, value, disabled, onChange }: { id: string; value: string[]; disabled: boolean; onChange: (value: string[]) => void }) {
  const [draft, setDraft] = useState(value.join(', '));
  return (
    <input
      id={id}
      value={draft}
      dir="auto"
      disabled={disabled}
      onChange={(event) => {
        setDraft(event.target.value);
        onChange(
          event.target.value
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean),
        );
      }}
    />
  );
}

// JSON kept as typed while it does not parse; the parsed value is passed on once it does.
export function JsonArea({ id, value, disabled, onChange }: { id: string; value: unknown; disabled: boolean; onChange: (value: unknown) => void }) {
  const [draft, setDraft] = useState(JSON.stringify(value));
  const [bad, setBad] = useState(false);
  return (
    <>
      <textarea
        id={id}
        value={draft}
        rows={2}
        spellCheck={false}
        disabled={disabled}
        aria-invalid={bad || undefined}
        onChange={(event) => {
          setDraft(event.target.value);
          try {
            onChange(JSON.parse(event.target.value));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad ? <span className="small alert">Not JSON yet: the last valid conditions are kept.</span> : null}
    </>
  );
}
