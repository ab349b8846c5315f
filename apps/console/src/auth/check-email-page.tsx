import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, navigate, useLocation } from '../router';
import { AuthLayout, ErrorAlert, PageHeading } from '../ui/page';
import { openLink, parseLink } from './verify-link';

// After sign-up or a reset request: the link is in the email (in development without SMTP_URL,
// in the dev mailbox: `npm run admin -- mailbox`). Opening it here signs the user in.
export function CheckEmailPage() {
  const { query } = useLocation();
  const email = query.get('email');
  return (
    <AuthLayout>
      <PageHeading>Check your email</PageHeading>
      <p>
        We sent a link to {email ? <strong dir="auto">{email}</strong> : 'your address'}. Open it, or paste it below. It works once and expires after 24 hours
        (a password reset link after 1 hour).
      </p>
      <p className="muted small">
        Running the service locally without <code>SMTP_URL</code>? Mail goes to the dev mailbox: <code>npm run admin -- mailbox</code>.
      </p>
      <LinkForm />
      <p className="links">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}

export function LinkForm() {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const link = parseLink(String(new FormData(event.currentTarget).get('link')));
      await openLink(link);
      navigate(link.type === 'recovery' ? '/reset-password' : '/onboarding', { replace: true });
    } catch (failed) {
      setError(failed);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={submit} aria-label="Open the emailed link">
      <div className="field">
        <label htmlFor="field-link">Link from the email</label>
        <input id="field-link" name="link" type="url" required autoComplete="off" />
      </div>
      <ErrorAlert error={error} />
      <button type="submit" className="primary" disabled={busy}>
        Open link
      </button>
    </form>
  );
}

// /app/verify?token=…&type=…: a link that points at the console opens at once.
export function VerifyPage() {
  const { query } = useLocation();
  const [error, setError] = useState<unknown>();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    try {
      const link = parseLink(`/?${query}`);
      openLink(link).then(
        () => navigate(link.type === 'recovery' ? '/reset-password' : '/onboarding', { replace: true }),
        (failed) => setError(failed),
      );
    } catch (failed) {
      setError(failed);
    }
  }, [query]);
  return (
    <AuthLayout>
      <PageHeading>Verifying your link</PageHeading>
      {error ? <ErrorAlert error={error} /> : <p role="status">Opening the link…</p>}
      <p className="links">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
