import { type FormEvent, useState } from 'react';
import { fromSupabase } from '../api/errors';
import { supabase } from '../api/supabase';
import { Link, navigate } from '../router';
import { AuthLayout, ErrorAlert, Field, PageHeading } from '../ui/page';

export function SignInPage() {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [unconfirmed, setUnconfirmed] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    const { error: failed } = await supabase.auth.signInWithPassword({ email: String(form.get('email')), password: String(form.get('password')) });
    setBusy(false);
    if (failed) {
      setUnconfirmed(failed.code === 'email_not_confirmed');
      setError(fromSupabase(failed));
      return;
    }
    navigate('/', { replace: true });
  }

  return (
    <AuthLayout>
      <PageHeading>Sign in</PageHeading>
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Email" name="email" type="email" autoComplete="email" />
        <Field label="Password" name="password" type="password" autoComplete="current-password" />
        <ErrorAlert error={error} />
        {unconfirmed ? (
          <p>
            <Link to="/check-email">Open your verification link</Link>
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      <p className="links">
        <Link to="/forgot-password">Forgot your password?</Link>
        <Link to="/sign-up">Create an account</Link>
      </p>
    </AuthLayout>
  );
}
