import { DomainError, Forbidden, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import type { AccountService, ProfilesWriter } from '@engage/identity';
import { missingBefore, type OnboardingState, onboardingState, type Step } from '../domain/onboarding-steps';
import {
  ACTIVE_PLAN,
  type FactsRow,
  ONBOARDING_FACTS,
  RECORD_CHANNELS_SKIPPED,
  RECORD_PLAN_CHOICE,
  SUBSCRIPTION_STATE,
} from '../infrastructure/onboarding.sql';

const PLAN_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

interface PlanRow {
  id: string;
  name: string;
  description: string;
  price: number;
  currency: string;
  interval: string;
}

// The onboarding of the signed-in user in their organization: its state is derived from facts held
// elsewhere (the email confirmation, the subscription the billing bridge wrote, the channel
// accounts), so it never disagrees with them; onboarding keeps only the plan chosen and a skip.
export class OnboardingService {
  constructor(
    private readonly db: Database,
    private readonly accounts: AccountService,
    private readonly profiles: ProfilesWriter,
  ) {}

  async state(ctx: RequestContext): Promise<OnboardingState> {
    const userId = userOf(ctx);
    return this.db.inTenant(ctx, async (tx) => (await this.facts(tx, userId)).state);
  }

  // Sends a new confirmation link (identity's email tokens and mail); nothing when already verified.
  async verifyEmail(ctx: RequestContext): Promise<{ sent: boolean; reason?: string; onboarding: OnboardingState }> {
    const sent = await this.accounts.resendConfirmation(userOf(ctx));
    return { sent, ...(sent ? {} : { reason: 'already_verified' }), onboarding: await this.state(ctx) };
  }

  // Records the plan chosen. There is no checkout here: the storefront sells the plan, and its
  // billing event (storefront-billing-webhook) creates the subscription that satisfies select_plan.
  // A billing write: allowed while the organization is read-only for an ended subscription.
  async selectPlan(ctx: RequestContext, body: unknown) {
    const userId = userOf(ctx);
    const planId = (body as { plan_id?: unknown } | null)?.plan_id;
    if (typeof planId !== 'string' || !PLAN_ID.test(planId)) {
      const rule = 'plan_id must be a plan id (lower-case letters, digits, - and _, at most 63 characters)';
      throw ValidationFailed('validation_failed', rule, { field: 'plan_id' });
    }
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const { state } = await this.facts(tx, userId);
        assertPassable(state, 'select_plan');
        const [plan] = await tx.query<PlanRow>(ACTIVE_PLAN, [planId]);
        if (!plan) throw ValidationFailed('plan.unknown', `plan ${planId} does not exist or is not offered`, { field: 'plan_id' });
        await tx.query(RECORD_PLAN_CHOICE, [userId, plan.id]);
        const [subscription] = await tx.query<{ plan_id: string; subscribed: boolean }>(SUBSCRIPTION_STATE);
        const subscribed = subscription?.plan_id === plan.id && subscription.subscribed;
        return {
          plan,
          checkout: {
            plan_id: plan.id,
            status: subscribed ? 'subscribed' : 'awaiting_billing_event',
            // Where the purchase continues: the storefront's checkout for the plan's product and price.
            next: subscribed ? null : 'complete the purchase of this plan at the storefront; its billing event activates the subscription',
          },
          onboarding: (await this.facts(tx, userId)).state,
        };
      },
      { purpose: 'billing' },
    );
  }

  // "Skip for now" at channel setup ends onboarding at once.
  async skipChannels(ctx: RequestContext): Promise<OnboardingState> {
    return this.complete(ctx, 'channel_setup', (tx, userId) => tx.query(RECORD_CHANNELS_SKIPPED, [userId]));
  }

  async finish(ctx: RequestContext): Promise<OnboardingState> {
    return this.complete(ctx, 'finish');
  }

  private complete(ctx: RequestContext, step: Step, before?: (tx: Tx, userId: string) => Promise<unknown>): Promise<OnboardingState> {
    const userId = userOf(ctx);
    return this.db.inTenant(ctx, async (tx) => {
      assertPassable((await this.facts(tx, userId)).state, step);
      await before?.(tx, userId);
      // Through identity's profile writer: the same rule (a database trigger) guards the data API's PATCH.
      await this.profiles.update(tx, ctx, userId, { onboarding_completed: true });
      return (await this.facts(tx, userId)).state;
    });
  }

  private async facts(tx: Tx, userId: string): Promise<{ state: OnboardingState; selectedPlanId: string | null }> {
    const [row] = await tx.query<FactsRow>(ONBOARDING_FACTS, [userId]);
    const state = onboardingState({
      emailVerified: row.email_verified,
      subscribed: row.subscribed,
      channelsReady: row.channels_ready,
      completed: row.completed,
    });
    return { state, selectedPlanId: row.selected_plan_id };
  }
}

function userOf(ctx: RequestContext): string {
  if (!ctx.userId) throw Forbidden('onboarding.user_required', 'onboarding is done by a signed-in user, not an API key');
  return ctx.userId;
}

function assertPassable(state: OnboardingState, step: Step): void {
  const missing = missingBefore(state, step);
  if (missing) {
    const hint =
      missing === 'verify_email'
        ? 'POST /functions/v1/onboarding/verify-email sends a new link'
        : 'subscribe to a plan (POST /functions/v1/onboarding/select-plan)';
    throw new DomainError('conflict', 'onboarding.step_missing', `Onboarding step ${missing} is not done`, { missing_step: missing }, hint);
  }
}
