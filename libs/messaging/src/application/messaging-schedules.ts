import { defineSchedule } from '@engage/platform';
import { inboundPurgeJob } from './inbound-purge';
import { pendingSendSweepJob } from './pending-send.sweeper';

// Messaging's background work on a clock. Inbound processing is not here: it is a hot queue of its own (docs/jobs.md).
// Hourly at a minute of its own, so the hourly purges of different contexts do not run together.
export const messagingSchedules = [defineSchedule({ job: pendingSendSweepJob, everyMs: 60_000 }), defineSchedule({ job: inboundPurgeJob, cron: '17 * * * *' })];
