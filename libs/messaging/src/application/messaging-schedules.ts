import { defineSchedule } from '@engage/platform';
import { inboundQueue } from './inbound.worker';
import { inboundPurgeJob } from './inbound-purge';
import { pendingSendSweepJob } from './pending-send.sweeper';
import { metaProfileJob } from './meta-profile.job';

// Messaging's background work on a clock.
// Hourly at a minute of its own, so the hourly purges of different contexts do not run together.
export const messagingSchedules = [defineSchedule({ job: pendingSendSweepJob, everyMs: 60_000 }), defineSchedule({ job: inboundPurgeJob, cron: '17 * * * *' })];

// Inbound processing: a hot queue of its own on the runner's loop (docs/jobs.md says why).
export const messagingQueues = [inboundQueue];

// Jobs enqueued by messaging's own transactions.
export const messagingJobs = [metaProfileJob];
