import { crmSchedules } from '@engage/crm';
import { identitySchedules } from '@engage/identity';
import { messagingSchedules } from '@engage/messaging';
import type { JobRegistrations } from '@engage/platform';
import { webhooksSchedules } from '@engage/webhooks';

// The durable jobs and schedules the contexts declare; the job runner of worker processes runs them.
export const CONTEXT_JOBS: JobRegistrations = {
  jobs: [],
  schedules: [...identitySchedules, ...crmSchedules, ...messagingSchedules, ...webhooksSchedules],
};
