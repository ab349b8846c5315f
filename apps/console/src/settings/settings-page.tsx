import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { fromSupabase } from '../api/errors';
import { callApi } from '../api/functions';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { useSession } from '../auth/session';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';

interface Profile {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string;
  role: string;
  onboarding_completed: boolean;
  email_confirmed: boolean;
}

interface Usage {
  used: number;
  limit: number | null;
}
interface SubscriptionView {
  plan: { name: string; description: string | null; price: number | string; currency: string; interval: string } | null;
  status: string;
  trial_days_remaining: number | null;
  next_billing_date: string | null;
  usage: { contacts: Usage; conversations: Usage; team_members: Usage };
}

// The profile tab (§2 Profile: email read-only, role shown) and the subscription view.
export function SettingsPage() {
  const { session } = useSession();
  const userId = session?.user.id ?? '';
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState(false);
  const profile = useQuery({
    queryKey: ['profile', userId],
    queryFn: async () =>
      (await rows<Profile>(supabase.from('profiles').select('id,first_name,last_name,email,role,onboarding_completed,email_confirmed').eq('id', userId)))[0],
  });
  const subscription = useQuery({ queryKey: ['subscription'], queryFn: () => callApi<SubscriptionView>('/functions/v1/subscription') });
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
    <>
      <PageHeading>Settings</PageHeading>
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
      <section aria-labelledby="subscription-heading">
        <h2 id="subscription-heading">Subscription</h2>
        {subscription.isPending ? <Loading what="your subscription" /> : null}
        <ErrorAlert error={subscription.error} />
        {subscription.data ? <Subscription view={subscription.data} /> : null}
      </section>
    </>
  );
}

function Subscription({ view }: { view: SubscriptionView }) {
  const usage = (label: string, value: Usage) => (
    <div>
      <dt>{label}</dt>
      <dd>
        {value.used} of {value.limit ?? 'unlimited'}
      </dd>
    </div>
  );
  return (
    <dl className="figures">
      <div>
        <dt>Plan</dt>
        <dd dir="auto">
          {view.plan
            ? `${view.plan.name} (${Number(view.plan.price).toLocaleString(undefined, { style: 'currency', currency: view.plan.currency })} / ${view.plan.interval})`
            : 'None'}
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          {view.status}
          {view.trial_days_remaining !== null ? `, ${view.trial_days_remaining} trial days left` : ''}
        </dd>
      </div>
      {view.next_billing_date ? (
        <div>
          <dt>Next billing date</dt>
          <dd>{new Date(view.next_billing_date).toLocaleDateString()}</dd>
        </div>
      ) : null}
      {usage('Contacts', view.usage.contacts)}
      {usage('Conversations this period', view.usage.conversations)}
      {usage('Team members', view.usage.team_members)}
    </dl>
  );
}
