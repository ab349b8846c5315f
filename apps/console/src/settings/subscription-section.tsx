import { useQuery } from '@tanstack/react-query';
import { callApi } from '../api/functions';
import { ErrorAlert, Loading } from '../ui/page';

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

// §2 Profile's subscription view: plan, status, trial, next billing date and usage against the plan.
export function SubscriptionSection() {
  const subscription = useQuery({ queryKey: ['subscription'], queryFn: () => callApi<SubscriptionView>('/functions/v1/subscription') });
  return (
    <section aria-labelledby="subscription-heading">
      <h2 id="subscription-heading">Subscription</h2>
      {subscription.isPending ? <Loading what="your subscription" /> : null}
      <ErrorAlert error={subscription.error} />
      {subscription.data ? <Subscription view={subscription.data} /> : null}
    </section>
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
