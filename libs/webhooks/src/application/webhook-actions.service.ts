import { assertAllowed } from '@engage/identity';
import { WEBHOOKS_MANAGE } from '../webhooks.permissions';
import type { Database } from '@engage/platform';
import { Conflict, DomainError, isUuid, NotFound, type Clock, type RequestContext } from '@engage/shared-kernel';
import { deliveryBody, TEST_EVENT_KIND } from '../domain/event-kinds';
import { CONFIGURATION_BY_ID, type ConfigurationRow, INSERT_TEST_DELIVERY, LOG_DELIVERY, PURGE_DELIVERIES, PURGE_LOGS } from '../infrastructure/webhook.sql';
import { assertWebhookId } from './configuration.service';
import type { AttemptOutcome, DeliveryRunner } from './delivery-runner';

// The test action, manual retries and log retention.
export class WebhookActions {
  constructor(
    private readonly db: Database,
    private readonly runner: DeliveryRunner,
    private readonly clock: Clock,
  ) {}

  // Sends a test payload now (not retried automatically, does not count towards disabling) and
  // answers the outcome. Works on inactive configurations too, so an endpoint can be checked first.
  async test(ctx: RequestContext, webhookId: string): Promise<AttemptOutcome> {
    assertAllowed(ctx.role, WEBHOOKS_MANAGE);
    assertWebhookId(webhookId);
    const job = await this.db.inTenant(ctx, async (tx) => {
      const [config] = await tx.query<ConfigurationRow>(CONFIGURATION_BY_ID, [webhookId]);
      if (!config) throw NotFound('webhook', webhookId);
      const now = this.clock.now();
      const data = { webhook_id: config.id, name: config.name, message: 'This is a test delivery from Engage.' };
      const [delivery] = await tx.query<{ id: string }>(INSERT_TEST_DELIVERY, [
        config.id,
        TEST_EVENT_KIND,
        deliveryBody(TEST_EVENT_KIND, now.toISOString(), data),
        now,
      ]);
      return this.runner.leaseOne(tx, delivery.id);
    });
    return this.runner.attempt(job!);
  }

  // Attempts the logged delivery again now, with the same webhook-id and body.
  async retry(ctx: RequestContext, logId: string): Promise<AttemptOutcome> {
    assertAllowed(ctx.role, WEBHOOKS_MANAGE);
    if (!isUuid(logId)) throw new DomainError('validation', 'webhook_log.invalid_id', `log id must be a UUID, got "${String(logId).slice(0, 64)}"`);
    const job = await this.db.inTenant(ctx, async (tx) => {
      const [log] = await tx.query<{ delivery_id: string | null }>(LOG_DELIVERY, [logId]);
      if (!log) throw NotFound('webhook_log', logId);
      if (!log.delivery_id) throw Conflict('webhook_log.delivery_gone', 'the delivery of this log entry no longer exists (retention)');
      const leased = await this.runner.leaseOne(tx, log.delivery_id);
      if (!leased) throw Conflict('webhook_log.attempt_in_progress', 'an attempt of this delivery is under way; try again shortly');
      return leased;
    });
    return this.runner.attempt(job);
  }

  async purge(retentionDays: number): Promise<{ logs: number; deliveries: number }> {
    const cutoff = new Date(this.clock.now().getTime() - retentionDays * 86_400_000);
    return this.db.asSystem(async (tx) => ({ logs: await tx.execute(PURGE_LOGS, [cutoff]), deliveries: await tx.execute(PURGE_DELIVERIES, [cutoff]) }));
  }
}
