import { useEffect, useRef } from 'react';

// A secret the API shows exactly once (an API key, a webhook's generated secret), in a modal dialog
// named by its title: the browser's own <dialog> keeps the focus inside until "Done".
export function ShownOnceDialog({ title, label, value, note, onDone }: { title: string; label: string; value: string; note: string; onDone: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="shown-once-title" className="shown-once" onCancel={onDone}>
      <h2 id="shown-once-title">{title}</h2>
      <p>{note}</p>
      <div className="field">
        <label htmlFor="shown-once-value">{label}</label>
        <input id="shown-once-value" value={value} readOnly onFocus={(event) => event.currentTarget.select()} spellCheck={false} />
      </div>
      <button type="button" className="primary" onClick={onDone}>
        Done
      </button>
    </dialog>
  );
}
