import { defineJob, defineSchedule } from '@engage/platform';
import { RunLogPurge } from './run-log-purge.job';
import { TIMER_PASS_EVERY_MS, TimerPass } from './timer-pass.job';

export const automationSchedules = [
  // At a minute of its own, so the hourly purges of different contexts do not run together.
  defineSchedule({ job: defineJob({ name: 'automation.run-purge', handler: RunLogPurge }), cron: '53 * * * *' }),
  // Timers fire, and waiting runs go on, within 30 s of their time (docs/automation.md).
  defineSchedule({ job: defineJob({ name: 'automation.timer-pass', handler: TimerPass }), everyMs: TIMER_PASS_EVERY_MS }),
];
