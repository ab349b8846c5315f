import { type ReactNode, useEffect, useRef } from 'react';

// Whether a page has been shown since the console loaded: the first one keeps the browser's own
// start (a Tab from a freshly loaded page reaches the skip link first).
let shownBefore = false;

// A page's heading takes the focus when a navigation opens it, so keyboard and screen-reader users
// start at the new content.
export function PageHeading({ children }: { children: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Engage`;
    if (shownBefore) heading.current?.focus();
    shownBefore = true;
  }, [children]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function ErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const hint = (error as { hint?: string }).hint;
  return (
    <div role="alert" className="alert">
      <span dir="auto">{message}</span>
      {hint ? (
        <span className="hint" dir="auto">
          {' '}
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export function Field({
  label,
  name,
  type = 'text',
  autoComplete,
  required = true,
  defaultValue,
  minLength,
}: {
  label: string;
  name: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  defaultValue?: string;
  minLength?: number;
}) {
  const id = `field-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} type={type} autoComplete={autoComplete} required={required} defaultValue={defaultValue} minLength={minLength} dir="auto" />
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

export function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="auth-layout">
      <div className="auth-card">
        <p className="brand">Engage</p>
        {children}
      </div>
    </main>
  );
}
