import { json } from '@engage/platform';
import { STEPS } from '../domain/onboarding-steps';

const { text, number, boolean, arrayOf, object, nullable, oneOfValues } = json;

const STEP = oneOfValues(STEPS);

// Where the user is: the first step not done (null once finished), and the required steps missing.
export const ONBOARDING_STATE = object({ current_step: nullable(STEP), completed_steps: arrayOf(STEP), missing: arrayOf(STEP), onboarding_completed: boolean });

const EMAIL_SENT = object({ sent: boolean, reason: oneOfValues(['already_verified']), onboarding: ONBOARDING_STATE }, ['reason']);
const PLAN_SELECTED = object({
  plan: object({ id: text, name: text, description: text, price: number, currency: text, interval: text }),
  checkout: object({ plan_id: text, status: oneOfValues(['subscribed', 'awaiting_billing_event']), next: nullable(text) }),
  onboarding: ONBOARDING_STATE,
});

// verify-email: whether a link was sent; select-plan: the plan and its checkout; skip-channels and finish: the state.
export const ONBOARDING_ACTION = { oneOf: [EMAIL_SENT, PLAN_SELECTED, ONBOARDING_STATE] };
