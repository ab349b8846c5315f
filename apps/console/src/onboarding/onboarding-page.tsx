import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/errors';
import { navigate } from '../router';
import { AuthLayout, ErrorAlert, Loading, PageHeading } from '../ui/page';
import {
  onboardingAction,
  onboardingKey,
  onboardingState,
  type OnboardingState,
  type OnboardingStep,
  type SelectPlanAnswer,
  useOnboarding,
  usePlans,
} from './onboarding.api';

const STEPS: { step: OnboardingStep; label: string }[] = [
  { step: 'verify_email', label: 'Verify your email' },
  { step: 'select_plan', label: 'Choose a plan' },
  { step: 'channel_setup', label: 'Connect channels' },
  { step: 'finish', label: 'Finish' },
];

// §3 Onboarding as the API enforces it: the state comes from GET /functions/v1/onboarding, each
// action is the API's, and a refused step shows the API's reason (409 onboarding.step_missing).
export function OnboardingPage() {
  const onboarding = useOnboarding();
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>();
  const settle = (state: OnboardingState) => {
    queryClient.setQueryData(onboardingKey, state);
    if (state.onboarding_completed) navigate('/inbox', { replace: true });
  };
  const act = useMutation({
    mutationFn: ({ action, body }: { action: Parameters<typeof onboardingAction>[0]; body?: unknown }) =>
      onboardingAction<OnboardingState | { onboarding: OnboardingState }>(action, body),
    onMutate: () => setError(undefined),
    onSuccess: (answer) => settle('onboarding' in answer ? answer.onboarding : answer),
    onError: setError,
  });

  if (onboarding.isPending) return <Loading what="onboarding" />;
  if (onboarding.error) {
    return (
      <AuthLayout>
        <ErrorAlert error={onboarding.error} />
      </AuthLayout>
    );
  }
  const state = onboarding.data;
  if (state.onboarding_completed) {
    navigate('/inbox', { replace: true });
    return null;
  }
  const current = state.current_step;
  return (
    <AuthLayout>
      <PageHeading>Set up your workspace</PageHeading>
      <ol className="steps" aria-label="Onboarding steps">
        {STEPS.map(({ step, label }) => (
          <li key={step} aria-current={step === current ? 'step' : undefined} className={state.completed_steps.includes(step) ? 'done' : undefined}>
            {label}
            {state.completed_steps.includes(step) ? <span className="visually-hidden"> (done)</span> : null}
          </li>
        ))}
      </ol>
      {current === 'verify_email' ? <VerifyStep onAction={() => act.mutate({ action: 'verify-email' })} busy={act.isPending} sent={act.isSuccess} /> : null}
      {current === 'select_plan' ? <PlanStep onError={setError} onState={settle} /> : null}
      {current === 'channel_setup' || current === 'finish' ? (
        <section aria-labelledby="channels-heading">
          <h2 id="channels-heading">Connect channels</h2>
          <p>
            Channels (chat app, Messenger, Instagram, email, SMS) are connected through the API for now: see <code>docs/messaging.md</code>. You can connect
            them later.
          </p>
          <div className="actions">
            <button type="button" className="primary" disabled={act.isPending} onClick={() => act.mutate({ action: 'finish' })}>
              Finish
            </button>
            <button type="button" disabled={act.isPending} onClick={() => act.mutate({ action: 'skip-channels' })}>
              Skip for now
            </button>
          </div>
        </section>
      ) : null}
      <ErrorAlert error={error} />
    </AuthLayout>
  );
}

function VerifyStep({ onAction, busy, sent }: { onAction: () => void; busy: boolean; sent: boolean }) {
  return (
    <section aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify your email</h2>
      <p>Open the link we emailed you. Lost it? We can send a new one (the older link then stops working).</p>
      {sent ? <p role="status">A new link is on its way.</p> : null}
      <button type="button" className="primary" disabled={busy} onClick={onAction}>
        Send a new link
      </button>
    </section>
  );
}

function PlanStep({ onError, onState }: { onError: (error: unknown) => void; onState: (state: OnboardingState) => void }) {
  const plans = usePlans();
  const [checkout, setCheckout] = useState<SelectPlanAnswer['checkout']>();
  const choose = useMutation({
    mutationFn: (planId: string) => onboardingAction<SelectPlanAnswer>('select-plan', { plan_id: planId }),
    onMutate: () => onError(undefined),
    onSuccess: (answer) => {
      setCheckout(answer.checkout);
      onState(answer.onboarding);
    },
    onError,
  });
  // The step is passed when the API says so: the storefront's billing event makes the subscription.
  const queryClient = useQueryClient();
  const goOn = useMutation({
    mutationFn: () => queryClient.fetchQuery({ queryKey: onboardingKey, queryFn: () => onboardingState(), staleTime: 0 }),
    onMutate: () => onError(undefined),
    onSuccess: (state) => {
      if (state.current_step === 'select_plan') {
        onError(
          new ApiError(
            `Not passed yet: the organization has no active subscription. ${checkout?.next ? `Next: ${checkout.next}.` : 'Choose a plan first.'}`,
            409,
          ),
        );
      }
      onState(state);
    },
    onError,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const plan = new FormData(event.currentTarget).get('plan');
    if (plan) choose.mutate(String(plan));
  }
  if (plans.isPending) return <Loading what="plans" />;
  if (plans.error) return <ErrorAlert error={plans.error} />;
  return (
    <section aria-labelledby="plan-heading">
      <h2 id="plan-heading">Choose a plan</h2>
      <form onSubmit={submit} aria-labelledby="plan-heading">
        <fieldset className="plans">
          <legend>Plans</legend>
          {plans.data.map((plan) => (
            <label key={plan.id} className="plan">
              <input type="radio" name="plan" value={plan.id} required />
              <span className="plan-name" dir="auto">
                {plan.name}
              </span>
              <span className="plan-price">
                {Number(plan.price).toLocaleString(undefined, { style: 'currency', currency: plan.currency })} / {plan.interval}
              </span>
              {plan.description ? (
                <span className="muted small" dir="auto">
                  {plan.description}
                </span>
              ) : null}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" disabled={choose.isPending}>
          Choose plan
        </button>
      </form>
      {checkout ? (
        <p role="status" className="checkout">
          {checkout.status === 'subscribed'
            ? 'Subscribed.'
            : `Your choice is recorded; the purchase is not complete yet.${checkout.next ? ` Next: ${checkout.next}.` : ''}`}
        </p>
      ) : null}
      <button type="button" onClick={() => goOn.mutate()} disabled={goOn.isPending}>
        Continue
      </button>
    </section>
  );
}
