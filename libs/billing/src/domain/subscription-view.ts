import type { SubscriptionStatus } from './billing-event';

// The subscription view of §2 Profile / issue item 4, computed from stored facts.
export const STATUS_LABELS: Record<SubscriptionStatus, string> = { active: 'Active', trialing: 'Trial', canceled: 'Cancelled', past_due: 'Past due' };

export interface PlanFacts {
  id: string;
  name: string;
  description: string;
  price: string;
  currency: string;
  interval: string;
  limit_contacts: number | null;
  limit_conversations_per_month: number | null;
  limit_team_members: number | null;
}

export interface SubscriptionFacts {
  status: SubscriptionStatus;
  current_period_end: Date | null;
  trial_end: Date | null;
  cancel_at_period_end: boolean;
  plan: PlanFacts;
}

export interface Usage {
  contacts: number;
  conversations: number;
  team_members: number;
}

type Meter = { used: number; limit: number | null };

export interface SubscriptionView {
  plan: { id: string; name: string; description: string; price: number; currency: string; interval: string } | null;
  status: string;
  trial_days_remaining: number | null;
  next_billing_date: string | null;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  usage: { contacts: Meter; conversations: Meter; team_members: Meter };
  over_limit: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

// No subscription row: no plan, status None, usage without limits (the organization is not limited).
export function subscriptionView(subscription: SubscriptionFacts | null, usage: Usage, now: Date): SubscriptionView {
  const plan = subscription?.plan;
  const meters = {
    contacts: { used: usage.contacts, limit: plan?.limit_contacts ?? null },
    conversations: { used: usage.conversations, limit: plan?.limit_conversations_per_month ?? null },
    team_members: { used: usage.team_members, limit: plan?.limit_team_members ?? null },
  };
  const overLimit = Object.values(meters).some((meter) => meter.limit !== null && meter.used > meter.limit);
  if (!subscription || !plan) {
    const none = { trial_days_remaining: null, next_billing_date: null, current_period_end: null, cancel_at_period_end: false };
    return { plan: null, status: 'None', ...none, usage: meters, over_limit: overLimit };
  }
  const { status, trial_end: trialEnd, current_period_end: periodEnd } = subscription;
  const trialing = status === 'trialing';
  // A trial bills when it ends; an active subscription at its period end, unless it is set to cancel then.
  const renews = (status === 'active' || trialing) && !subscription.cancel_at_period_end;
  const nextBilling = renews ? ((trialing ? trialEnd : null) ?? periodEnd) : null;
  return {
    plan: { id: plan.id, name: plan.name, description: plan.description, price: Number(plan.price), currency: plan.currency, interval: plan.interval },
    status: STATUS_LABELS[status],
    trial_days_remaining: trialing && trialEnd ? Math.max(0, Math.ceil((trialEnd.getTime() - now.getTime()) / DAY_MS)) : null,
    next_billing_date: nextBilling ? nextBilling.toISOString() : null,
    current_period_end: periodEnd ? periodEnd.toISOString() : null,
    cancel_at_period_end: subscription.cancel_at_period_end,
    usage: meters,
    over_limit: overLimit,
  };
}
