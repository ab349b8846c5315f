import { defineSchedule } from '@engage/platform';
import { inboundQueue } from '../inbound/inbound.worker';
import { outboundQueue } from '../outbound/queue.worker';
import { inboundPurgeJob } from '../inbound/inbound-purge';
import { EMAIL_POLL_EVERY_MS, emailMailboxJob, emailPollJob } from '../channels/email/email-jobs';
import { pendingSendSweepJob } from '../outbound/pending-send.sweeper';
import { metaProfileJob } from '../channels/meta/meta-profile.job';
import { SCHEDULED_SEND_EVERY_MS, scheduledSendPassJob } from '../outbound/scheduled-send.job';

// Messaging's background work on a clock.
// Hourly at a minute of its own, so the hourly purges of different contexts do not run together.
export const messagingSchedules = [
  defineSchedule({ job: pendingSendSweepJob, everyMs: 60_000 }),
  defineSchedule({ job: inboundPurgeJob, cron: '17 * * * *' }),
  defineSchedule({ job: emailPollJob, everyMs: EMAIL_POLL_EVERY_MS }),
  // Scheduled sends go out within 30 s of their time (docs/messaging.md, "Scheduled sends").
  defineSchedule({ job: scheduledSendPassJob, everyMs: SCHEDULED_SEND_EVERY_MS }),
];

// Inbound processing: a hot queue of its own on the runner's loop (docs/jobs.md says why); the paced
// send queue, woken by each queued message and on the pacing's own times.
export const messagingQueues = [inboundQueue, outboundQueue];

// Jobs enqueued by messaging's own transactions and schedules.
export const messagingJobs = [metaProfileJob, emailMailboxJob];
