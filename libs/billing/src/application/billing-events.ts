import { defineEvent } from '@engage/shared-kernel';
import type { SubscriptionStatus } from '../domain/billing-event';

// The subscription as its change event carries it (internal: no webhook kind of §6 is about it).
export type SubscriptionRecord = {
  id: string;
  organization_id: string;
  plan_id: string;
  billing_provider: string;
  storefront_store_id: string | null;
  status: SubscriptionStatus;
  current_period_start: string | null;
  current_period_end: string | null;
  trial_start: string | null;
  trial_end: string | null;
  cancel_at_period_end: boolean;
};

export type SubscriptionChangedPayload = { subscription: SubscriptionRecord; created: boolean; actor_id: null };

// Emitted for every applied billing event (a replay too; stale ones change nothing and emit
// nothing), in the transaction of the write, so limits, onboarding and others can react.
export const SUBSCRIPTION_CHANGED = defineEvent<SubscriptionChangedPayload>({
  name: 'subscription.changed',
  source: 'billing',
  version: 1,
  description: 'a billing event was applied to an organization’s subscription (created, or its plan, status or period changed)',
});

export const BILLING_EVENTS = [SUBSCRIPTION_CHANGED];
