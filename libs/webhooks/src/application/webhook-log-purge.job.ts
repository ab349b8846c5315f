import { Inject, Injectable } from '@nestjs/common';
import { type Config, CONFIG, defineJob, defineSchedule, type JobHandler, settingsOf } from '@engage/platform';
import { WEBHOOK_SETTINGS } from '../webhooks.settings';
import { WebhookActions } from './webhook-actions.service';

// Attempt logs and finished deliveries older than WEBHOOK_LOG_RETENTION_DAYS go, hourly.
@Injectable()
export class WebhookLogPurge implements JobHandler {
  constructor(
    private readonly actions: WebhookActions,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async handle(): Promise<void> {
    await this.actions.purge(settingsOf(this.config, WEBHOOK_SETTINGS).WEBHOOK_LOG_RETENTION_DAYS);
  }
}

// At a minute of its own, so the hourly purges of different contexts do not run together.
export const webhooksSchedules = [defineSchedule({ job: defineJob({ name: 'webhooks.log-purge', handler: WebhookLogPurge }), cron: '37 * * * *' })];
