import { type FormEvent, useState } from 'react';
import { fromSupabase } from '../api/errors';
import { supabase } from '../api/supabase';
import { Link, navigate } from '../router';
import { AuthLayout, ErrorAlert, Field, PageHeading } from '../ui/page';
import { LinkForm } from './check-email-page';

export function ForgotPasswordPage() {
  const [error, setError] = useState<unknown>();
  const [sentTo, setSentTo] = useState<string>();
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email'));
    setError(undefined);
    const { error: failed } = await supabase.auth.resetPasswordForEmail(email);
    if (failed) return setError(fromSupabase(failed));
    setSentTo(email);
  }
  return (
    <AuthLayout>
      <PageHeading>Reset your password</PageHeading>
      {sentTo ? (
        <>
          <p role="status">
            If <strong dir="auto">{sentTo}</strong> has an account, we sent it a reset link (valid for 1 hour). Open it, or paste it below.
          </p>
          <LinkForm />
        </>
      ) : (
        <form onSubmit={submit} aria-label="Reset your password">
          <Field label="Email" name="email" type="email" autoComplete="email" />
          <ErrorAlert error={error} />
          <button type="submit" className="primary">
            Send reset link
          </button>
        </form>
      )}
      <p className="links">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}

export function ResetPasswordPage() {
  const [error, setError] = useState<unknown>();
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(undefined);
    const { error: failed } = await supabase.auth.updateUser({ password: String(new FormData(event.currentTarget).get('password')) });
    if (failed) return setError(fromSupabase(failed));
    navigate('/', { replace: true });
  }
  return (
    <AuthLayout>
      <PageHeading>Choose a new password</PageHeading>
      <form onSubmit={submit} aria-label="Choose a new password">
        <Field label="New password" name="password" type="password" autoComplete="new-password" minLength={8} />
        <ErrorAlert error={error} />
        <button type="submit" className="primary">
          Save password
        </button>
      </form>
    </AuthLayout>
  );
}
