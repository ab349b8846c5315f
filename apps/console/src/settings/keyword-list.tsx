import { type KeyboardEvent, useId, useState } from 'react';
import { ErrorAlert } from '../ui/page';

// One of the organization's keyword lists (docs/campaigns.md, "Opt-out keywords"): the words as a
// list, each removable, a field to add one. Unset (null) shows the API's defaults, which apply
// until the list is changed; the words are sent as typed and the API checks them (1 to 20 words of
// 1 to 32 letters or digits), its refusal shown here when it names this setting.
export function KeywordList({
  legend,
  word,
  value,
  defaults,
  editable,
  error,
  onChange,
}: {
  legend: string;
  word: string;
  value: string[] | null;
  defaults: string[];
  editable: boolean;
  error: unknown;
  onChange: (next: string[] | null) => void;
}) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const words = value ?? defaults;
  function add() {
    const next = typed.trim();
    if (next === '') return;
    onChange([...words, next]);
    setTyped('');
  }
  // Enter adds the word instead of saving the whole form.
  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add();
  }
  return (
    <fieldset className="keyword-list" aria-invalid={error ? true : undefined}>
      <legend>{legend}</legend>
      {value === null ? <p className="small muted">Not set: the defaults below apply.</p> : null}
      {words.length === 0 ? <p className="small muted">No words: the defaults apply once saved.</p> : null}
      <ul aria-label={legend}>
        {words.map((candidate, index) => (
          <li key={`${index}-${candidate}`}>
            <span dir="auto">{candidate}</span>
            {editable ? (
              <button type="button" onClick={() => onChange(words.filter((_, at) => at !== index))} aria-label={`Remove ${word} ${candidate}`}>
                Remove
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {editable ? (
        <div className="filters">
          <div className="field">
            <label htmlFor={`${id}-new`}>New {word}</label>
            <input id={`${id}-new`} value={typed} onChange={(event) => setTyped(event.target.value)} onKeyDown={onKeyDown} maxLength={64} dir="auto" />
          </div>
          <div className="field">
            <button type="button" onClick={add} aria-label={`Add ${word}`}>
              Add
            </button>
          </div>
          {value !== null ? (
            <div className="field">
              <button type="button" onClick={() => onChange(null)} aria-label={`Back to the defaults (${legend.toLowerCase()})`}>
                Back to the defaults
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      <ErrorAlert error={error} />
    </fieldset>
  );
}
