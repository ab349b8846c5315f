import { useQuery } from '@tanstack/react-query';
import { callApi } from '../api/functions';
import { fromSupabase } from '../api/errors';
import { supabase } from '../api/supabase';

export type OnboardingStep = 'verify_email' | 'select_plan' | 'channel_setup' | 'finish';

// GET /functions/v1/onboarding (docs/onboarding.md).
export interface OnboardingState {
  current_step: OnboardingStep | null;
  completed_steps: OnboardingStep[];
  missing: OnboardingStep[];
  onboarding_completed: boolean;
}

export interface SelectPlanAnswer {
  plan: { id: string; name: string };
  checkout: { plan_id: string; status: 'awaiting_billing_event' | 'subscribed'; next?: string };
  onboarding: OnboardingState;
}

export interface Plan {
  id: string;
  name: string;
  description: string | null;
  price: number | string;
  currency: string;
  interval: string;
}

export const onboardingKey = ['onboarding'] as const;

export const onboardingState = () => callApi<OnboardingState>('/functions/v1/onboarding');

export const useOnboarding = () => useQuery({ queryKey: onboardingKey, queryFn: onboardingState });

export const usePlans = () =>
  useQuery({
    queryKey: ['subscription_plans'],
    queryFn: async () => {
      const { data, error } = await supabase.from('subscription_plans').select('id,name,description,price,currency,interval').order('price');
      if (error) throw fromSupabase(error);
      return data as Plan[];
    },
  });

export const onboardingAction = <T>(action: 'verify-email' | 'select-plan' | 'skip-channels' | 'finish', body?: unknown) =>
  callApi<T>(`/functions/v1/onboarding/${action}`, { method: 'POST', body: body ?? {} });
