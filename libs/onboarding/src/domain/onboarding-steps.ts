// The onboarding sequence (§3 Onboarding): email verification and plan selection are required,
// channel setup is optional (skipping it ends onboarding at once), finish sets onboarding_completed.
export const STEPS = ['verify_email', 'select_plan', 'channel_setup', 'finish'] as const;
export type Step = (typeof STEPS)[number];
export const REQUIRED_STEPS: readonly Step[] = ['verify_email', 'select_plan'];

export interface OnboardingFacts {
  emailVerified: boolean;
  // A trialing or active subscription of the organization.
  subscribed: boolean;
  // A channel account of the organization, or the user chose "skip for now".
  channelsReady: boolean;
  completed: boolean;
}

export interface OnboardingState {
  current_step: Step | null;
  completed_steps: Step[];
  missing: Step[];
  onboarding_completed: boolean;
}

export function onboardingState(facts: OnboardingFacts): OnboardingState {
  const done: Record<Step, boolean> = {
    verify_email: facts.emailVerified,
    select_plan: facts.subscribed,
    channel_setup: facts.channelsReady,
    finish: facts.completed,
  };
  const completed_steps = STEPS.filter((step) => done[step]);
  const missing = REQUIRED_STEPS.filter((step) => !done[step]);
  // Once finished nothing is current; before, the first step not done (in order).
  const current_step = facts.completed ? null : (STEPS.find((step) => !done[step]) ?? 'finish');
  return { current_step, completed_steps, missing, onboarding_completed: facts.completed };
}

// The first required step not done before `step` may be passed, if any.
export function missingBefore(state: OnboardingState, step: Step): Step | undefined {
  const index = STEPS.indexOf(step);
  return state.missing.find((missing) => STEPS.indexOf(missing) < index);
}
