import { json } from '@engage/platform';
import { SUBSCRIPTION_STATUSES } from '../domain/billing-event';
import { STATUS_LABELS } from '../domain/subscription-view';

const { uuid, text, at, integer, number, boolean, object, nullable, oneOfValues } = json;

// §4.7: a stale event answers applied false with reason stale_event.
export const BILLING_EVENT_OUTCOME = object(
  {
    ok: oneOfValues([true]),
    applied: boolean,
    organization_id: uuid,
    storefront_store_id: text,
    status: oneOfValues(SUBSCRIPTION_STATUSES),
    reason: oneOfValues(['stale_event']),
  },
  ['reason'],
);

const METER = object({ used: integer, limit: nullable(integer) });

// Without a subscription: plan null, status None, usage without limits.
export const SUBSCRIPTION_VIEW = object({
  plan: nullable(object({ id: text, name: text, description: text, price: number, currency: text, interval: text })),
  status: oneOfValues(['None', ...Object.values(STATUS_LABELS)]),
  trial_days_remaining: nullable(integer),
  next_billing_date: nullable(at),
  current_period_end: nullable(at),
  cancel_at_period_end: boolean,
  usage: object({ contacts: METER, conversations: METER, team_members: METER }),
  over_limit: boolean,
});
