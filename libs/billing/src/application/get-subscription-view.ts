import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { Database } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import type { SubscriptionStatus } from '../domain/billing-event';
import { type PlanFacts, subscriptionView, type SubscriptionView } from '../domain/subscription-view';
import { SUBSCRIPTION_AND_USAGE } from '../infrastructure/subscription.sql';

// The caller's organization's subscription view (GET /functions/v1/subscription).
export class GetSubscriptionView extends Query<SubscriptionView> {
  constructor(readonly ctx: RequestContext) {
    super();
  }
}

type Row = {
  status: SubscriptionStatus | null;
  current_period_end: Date | null;
  trial_end: Date | null;
  cancel_at_period_end: boolean | null;
  plan: PlanFacts | null;
  contacts: number;
  conversations: number;
  team_members: number;
};

@QueryHandler(GetSubscriptionView)
export class GetSubscriptionViewHandler implements IQueryHandler<GetSubscriptionView, SubscriptionView> {
  constructor(private readonly db: Database) {}

  async execute({ ctx }: GetSubscriptionView): Promise<SubscriptionView> {
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<Row>(SUBSCRIPTION_AND_USAGE, [], { prepare: true }));
    const { status, plan } = row;
    const subscription =
      status && plan
        ? { status, plan, current_period_end: row.current_period_end, trial_end: row.trial_end, cancel_at_period_end: row.cancel_at_period_end ?? false }
        : null;
    return subscriptionView(subscription, { contacts: row.contacts, conversations: row.conversations, team_members: row.team_members }, new Date());
  }
}
