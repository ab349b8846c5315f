import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { fromSupabase } from '../api/errors';
import { supabase } from '../api/supabase';
import { ErrorAlert, Loading } from '../ui/page';
import { useProfile } from './profile.api';

// §2 Profile: names editable, email read-only, role shown.
export function ProfileSection() {
  const profile = useProfile();
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState(false);
  const userId = profile.data?.id ?? '';
  const save = useMutation({
    mutationFn: async (fields: { first_name: string; last_name: string }) => {
      const { error } = await supabase.from('profiles').update(fields).eq('id', userId);
      if (error) throw fromSupabase(error);
    },
    onMutate: () => setSaved(false),
    onSuccess: () => {
      setSaved(true);
      void queryClient.invalidateQueries({ queryKey: ['profile', userId] });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    save.mutate({ first_name: String(form.get('first_name')), last_name: String(form.get('last_name')) });
  }
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      {profile.isPending ? <Loading what="your profile" /> : null}
      <ErrorAlert error={profile.error} />
      {profile.data ? (
        <form onSubmit={submit} aria-labelledby="profile-heading" className="narrow">
          <div className="field">
            <label htmlFor="profile-first-name">First name</label>
            <input id="profile-first-name" name="first_name" defaultValue={profile.data.first_name ?? ''} dir="auto" autoComplete="given-name" />
          </div>
          <div className="field">
            <label htmlFor="profile-last-name">Last name</label>
            <input id="profile-last-name" name="last_name" defaultValue={profile.data.last_name ?? ''} dir="auto" autoComplete="family-name" />
          </div>
          <div className="field">
            <label htmlFor="profile-email">Email</label>
            <input id="profile-email" value={profile.data.email} readOnly dir="auto" />
          </div>
          <p>
            Role: <strong>{profile.data.role}</strong>
          </p>
          <ErrorAlert error={save.error} />
          {saved ? <p role="status">Saved.</p> : null}
          <button type="submit" className="primary" disabled={save.isPending}>
            Save profile
          </button>
        </form>
      ) : null}
    </section>
  );
}
