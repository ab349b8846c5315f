import { intSetting } from '@engage/platform';

// The settings of outbound webhooks (its manifest's `settings`).
export const WEBHOOK_SETTINGS = {
  WEBHOOK_LOG_RETENTION_DAYS: intSetting({
    group: 'webhooks',
    default: 30,
    min: 1,
    max: 3650,
    description: 'days outbound webhook attempt logs (webhook_logs) and finished deliveries are kept',
  }),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: intSetting({
    group: 'webhooks',
    default: 4,
    min: 1,
    max: 100,
    description: 'deliveries in flight at once to one webhook configuration, across worker replicas',
  }),
  WEBHOOK_MAX_IN_FLIGHT: intSetting({ group: 'webhooks', default: 64, min: 1, max: 10000, description: 'deliveries in flight at once per worker process' }),
};
