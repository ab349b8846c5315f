import { type FormEvent, useState } from 'react';
import { fromSupabase } from '../api/errors';
import { supabase } from '../api/supabase';
import { Link, navigate } from '../router';
import { AuthLayout, ErrorAlert, Field, PageHeading } from '../ui/page';

export function SignUpPage() {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    setBusy(true);
    setError(undefined);
    const { error: failed } = await supabase.auth.signUp({
      email,
      password: String(form.get('password')),
      options: {
        data: {
          first_name: String(form.get('first_name')),
          last_name: String(form.get('last_name')),
          organization_name: String(form.get('organization_name')) || undefined,
        },
      },
    });
    setBusy(false);
    if (failed) return setError(fromSupabase(failed));
    navigate(`/check-email?email=${encodeURIComponent(email)}`);
  }

  return (
    <AuthLayout>
      <PageHeading>Create an account</PageHeading>
      <form onSubmit={submit} aria-label="Create an account">
        <Field label="First name" name="first_name" autoComplete="given-name" />
        <Field label="Last name" name="last_name" autoComplete="family-name" required={false} />
        <Field label="Organization name" name="organization_name" autoComplete="organization" required={false} />
        <Field label="Email" name="email" type="email" autoComplete="email" />
        <Field label="Password" name="password" type="password" autoComplete="new-password" minLength={8} />
        <p className="muted small">At least 8 characters.</p>
        <ErrorAlert error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Create account
        </button>
      </form>
      <p className="links">
        <Link to="/sign-in">I have an account</Link>
      </p>
    </AuthLayout>
  );
}
