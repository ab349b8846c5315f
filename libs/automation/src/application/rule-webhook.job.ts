import { Inject, Injectable } from '@nestjs/common';
import { Database, defineJob, enqueueJob, type JobContext, type JobHandler, SecretBox, type Tx } from '@engage/platform';
import { CLOCK, type Clock, type RequestContext } from '@engage/shared-kernel';
import { type ActionOutcome, settledStatus } from '../domain/runs';
import { FINISH_RUN, RUN_ACTION, RUN_FOR_UPDATE, SET_RUN_ACTIONS } from '../infrastructure/automation.sql';
import type { WebhookDelivery } from './rule-actions';
import { failedAfter, RuleWebhook } from './rule-webhook';

// One attempt of a rule's send_webhook delivery: the run, the action's position in it, where and
// what to post (the secret as sealed), the attempt's number and when the first one was made.
export interface DeliveryPayload {
  run_id: string;
  index: number;
  url: string;
  secret: string | null;
  body: string;
  attempt: number;
  first_at: string;
}

type Stored = { status: string; actions: ActionOutcome[] };

// A rule's webhook is delivered by jobs, one attempt each, so the rule engine (a consumer of the
// event relay) never waits for a receiver. The action stays `pending` in the run log, with the last
// reason and the attempts so far, until an attempt gets a 2xx (`succeeded`) or the attempts or the
// 60 s budget are spent, or the failure is not worth another try (`failed`); a run left
// `delivering` by its engine then gets its outcome. Each attempt checks that the action still waits
// for it, so a job run twice (its worker died after the attempt) changes nothing the second time;
// the receiver may then get the POST twice (x-automation-run names the run).
@Injectable()
export class RuleWebhookDelivery implements JobHandler<DeliveryPayload> {
  constructor(
    private readonly db: Database,
    private readonly webhook: RuleWebhook,
    private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async handle(delivery: DeliveryPayload, job: JobContext): Promise<string> {
    if (!job.organizationId) return 'no organization';
    const ctx: RequestContext = { organizationId: job.organizationId, userId: null, role: 'SYSTEM', requestId: delivery.run_id };
    const [state] = await this.db.inTenant(ctx, (tx) => tx.query<{ action: ActionOutcome | null }>(RUN_ACTION, [delivery.run_id, delivery.index]), {
      readOnly: true,
    });
    if (!awaits(state?.action, delivery.attempt)) return 'already done';
    const firstAt = new Date(delivery.first_at).getTime();
    const secret = delivery.secret ? this.box.open(delivery.secret) : undefined;
    const left = this.webhook.timing.budgetMs - (this.clock.now().getTime() - firstAt);
    const result = await this.webhook.attempt(delivery.url, delivery.body, secret, delivery.run_id, Math.max(1, left));
    let outcome: ActionOutcome;
    let pause: number | undefined;
    if (result.ok) outcome = { type: 'send_webhook', status: 'succeeded', result: { status_code: result.status, attempts: delivery.attempt } };
    else {
      pause = result.retry ? this.webhook.nextDelay(delivery.attempt, this.clock.now().getTime() - firstAt) : undefined;
      outcome =
        pause === undefined
          ? { type: 'send_webhook', status: 'failed', error: failedAfter(result.reason, delivery.attempt) }
          : { type: 'send_webhook', status: 'pending', error: result.reason, result: { attempts: delivery.attempt } };
    }
    await this.db.inTenant(ctx, async (tx) => {
      const [run] = await tx.query<Stored>(RUN_FOR_UPDATE, [delivery.run_id]);
      if (!run || !awaits(run.actions[delivery.index], delivery.attempt)) return;
      const actions = run.actions.map((action, index) => (index === delivery.index ? outcome : action));
      if (run.status === 'delivering') await tx.execute(FINISH_RUN, [delivery.run_id, settledStatus(actions), JSON.stringify(actions), this.clock.now()]);
      else await tx.execute(SET_RUN_ACTIONS, [delivery.run_id, JSON.stringify(actions)]);
      if (pause !== undefined) {
        await enqueueJob(tx, RULE_WEBHOOK_JOB, { ...delivery, attempt: delivery.attempt + 1 }, { runAt: new Date(this.clock.now().getTime() + pause) });
      }
    });
    return outcome.status;
  }
}

// Whether the action still waits for this attempt: pending, with one attempt fewer made.
function awaits(action: ActionOutcome | null | undefined, attempt: number): boolean {
  return action?.status === 'pending' && ((action.result?.attempts as number | undefined) ?? 0) === attempt - 1;
}

// A job that fails outside its attempt (the database unreachable) is run again by the runner; its
// attempt is not repeated once recorded.
export const RULE_WEBHOOK_JOB = defineJob<DeliveryPayload>({
  name: 'automation.rule-webhook',
  handler: RuleWebhookDelivery,
  retry: { maxAttempts: 5, baseMs: 2_000, maxMs: 30_000 },
  leaseMs: 60_000,
});

// The first attempt of a run's new webhook, in the transaction that stores the run's outcome.
export async function enqueueDelivery(tx: Tx, runId: string, delivery: WebhookDelivery, now: Date): Promise<void> {
  await enqueueJob(tx, RULE_WEBHOOK_JOB, { run_id: runId, ...delivery, attempt: 1, first_at: now.toISOString() });
}
