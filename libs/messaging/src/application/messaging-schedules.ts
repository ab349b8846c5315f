import { defineSchedule } from '@engage/platform';
import { inboundQueue } from './inbound.worker';
import { inboundPurgeJob } from './inbound-purge';
import { EMAIL_POLL_EVERY_MS, emailMailboxJob, emailPollJob } from './email-jobs';
import { pendingSendSweepJob } from './pending-send.sweeper';
import { metaProfileJob } from './meta-profile.job';

// Messaging's background work on a clock.
// Hourly at a minute of its own, so the hourly purges of different contexts do not run together.
export const messagingSchedules = [
  defineSchedule({ job: pendingSendSweepJob, everyMs: 60_000 }),
  defineSchedule({ job: inboundPurgeJob, cron: '17 * * * *' }),
  defineSchedule({ job: emailPollJob, everyMs: EMAIL_POLL_EVERY_MS }),
];

// Inbound processing: a hot queue of its own on the runner's loop (docs/jobs.md says why).
export const messagingQueues = [inboundQueue];

// Jobs enqueued by messaging's own transactions and schedules.
export const messagingJobs = [metaProfileJob, emailMailboxJob];
