import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Database, sqlStateOf } from '@engage/platform';
import { Conflict, DomainError, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { BillingEvent, SubscriptionStatus } from '../domain/billing-event';
import { EVENT_FACTS, STORED_STATUS, UPSERT_SUBSCRIPTION } from '../infrastructure/subscription.sql';
import { SUBSCRIPTION_CHANGED, type SubscriptionRecord } from './billing-events';

export interface BillingEventOutcome {
  ok: true;
  applied: boolean;
  organization_id: string;
  storefront_store_id: string;
  status: SubscriptionStatus;
  reason?: 'stale_event';
}

// Applies one verified billing event to the organization's subscription (§4.7, §3).
export class ApplyBillingEvent extends Command<BillingEventOutcome> {
  constructor(readonly event: BillingEvent) {
    super();
  }
}

type Facts = { organization_exists: boolean; owner_id: string | null; plan_metadata: Record<string, string | null> | null };
type Row = Omit<SubscriptionRecord, 'current_period_start' | 'current_period_end' | 'trial_start' | 'trial_end'> & {
  current_period_start: Date | null;
  current_period_end: Date | null;
  trial_start: Date | null;
  trial_end: Date | null;
  created: boolean;
};

const iso = (at: Date | null) => (at ? at.toISOString() : null);
// Under row-level security, an upsert that meets another organization's row fails instead of skipping it.
const isPolicyViolation = (error: unknown) => sqlStateOf(error) === '42501';

@CommandHandler(ApplyBillingEvent)
export class ApplyBillingEventHandler implements ICommandHandler<ApplyBillingEvent, BillingEventOutcome> {
  constructor(private readonly db: Database) {}

  async execute({ event }: ApplyBillingEvent): Promise<BillingEventOutcome> {
    const [facts] = await this.db.systemQuery<Facts>(EVENT_FACTS, [event.organizationId, event.planId], { prepare: true });
    if (!facts.organization_exists) throw NotFound('organization', event.organizationId);
    if (!facts.plan_metadata) {
      throw new DomainError('unprocessable', 'billing.unknown_plan', `plan_id ${event.planId} is not a plan of subscription_plans`, { field: 'plan_id' });
    }
    if (!facts.owner_id) throw new DomainError('unprocessable', 'billing.no_owner', 'the organization has no OWNER to hold the subscription');
    const ctx: RequestContext = { organizationId: event.organizationId, userId: null, role: 'SYSTEM', requestId: `billing-${event.storeId}` };
    try {
      return await this.upsert(ctx, event, facts);
    } catch (error) {
      // Two first deliveries of a new subscription can race past the store key into the organization
      // key (not the upsert's arbiter); the second, retried, meets the stored row through the store key.
      if (error instanceof DomainError && error.code === OTHER_STORE) return this.upsert(ctx, event, facts);
      throw error;
    }
  }

  private async upsert(ctx: RequestContext, event: BillingEvent, facts: Facts): Promise<BillingEventOutcome> {
    try {
      return await this.db.inTenant(
        ctx,
        async (tx) => {
          const [row] = await tx.query<Row>(UPSERT_SUBSCRIPTION, params(event, facts), {
            prepare: true,
            violations: { subscriptions_organization_id_key: () => otherStore(event) },
          });
          const outcome = { ok: true as const, organization_id: event.organizationId, storefront_store_id: event.storeId };
          if (!row) {
            const [stored] = await tx.query<{ status: SubscriptionStatus }>(STORED_STATUS, [event.storeId], { prepare: true });
            return { ...outcome, applied: false, status: stored?.status ?? event.status, reason: 'stale_event' as const };
          }
          const { created, ...record } = row;
          const subscription: SubscriptionRecord = {
            ...record,
            current_period_start: iso(row.current_period_start),
            current_period_end: iso(row.current_period_end),
            trial_start: iso(row.trial_start),
            trial_end: iso(row.trial_end),
          };
          const payload = { subscription, created, actor_id: null };
          await tx.emit([SUBSCRIPTION_CHANGED.create({ organizationId: event.organizationId, aggregateId: row.id, payload })]);
          return { ...outcome, applied: true, status: row.status };
        },
        BILLING_WRITE,
      );
    } catch (error) {
      if (isPolicyViolation(error)) {
        throw Conflict('billing.store_of_another_organization', `storefront_store_id ${event.storeId} is billed to another organization`);
      }
      throw error;
    }
  }
}

// Allowed while the organization is read-only, so an ended subscription can be renewed (docs/plan-limits.md).
const BILLING_WRITE = { purpose: 'billing' } as const;

function params(event: BillingEvent, facts: Facts): unknown[] {
  return [
    event.organizationId,
    event.planId,
    event.storeId,
    event.shopDomain ?? null,
    event.status,
    event.currentPeriodStart ?? null,
    event.currentPeriodEnd ?? null,
    event.trialStart ?? null,
    event.trialEnd ?? null,
    event.cancelAtPeriodEnd ?? null,
    JSON.stringify(facts.plan_metadata),
    facts.owner_id,
    event.trialStart !== undefined,
    event.trialEnd !== undefined,
  ];
}

const OTHER_STORE = 'billing.other_store';
const otherStore = (event: BillingEvent) =>
  Conflict(OTHER_STORE, `organization ${event.organizationId} is already billed through another store; one subscription per organization`);
