import { type Database, defineJob, enqueueJob, type JobContext, type JobHandler } from '@engage/platform';
import { SYSTEM_QUEUE_MAILBOXES } from './email.sql';
import type { EmailMailboxReader, MailboxRun } from './email-mailbox';

// How often the schedule looks for email channels to read: the polling interval of servers
// without IDLE, and the longest a mailbox goes unwatched between IDLE runs.
export const EMAIL_POLL_EVERY_MS = 30_000;

// One run of one mailbox, on whichever worker claims it (the mailbox lease keeps it to one reader).
// A failed run is logged (the server's words and ids only) and kept in last_error; it is not
// retried as a job: the next tick runs the mailbox again.
export class EmailMailboxJob implements JobHandler<{ channelAccountId: string }> {
  constructor(
    private readonly reader: EmailMailboxReader,
    private readonly warn: (fields: Record<string, unknown>, line: string) => void = () => undefined,
  ) {}

  async handle(payload: { channelAccountId: string }, job: JobContext): Promise<MailboxRun | undefined> {
    if (!job.organizationId) return undefined;
    const run = await this.reader.read(job.organizationId, payload.channelAccountId);
    const problem = run.error ?? run.warning;
    if (problem) {
      this.warn({ organization_id: job.organizationId, channel_account_id: payload.channelAccountId, stored: run.stored, error: problem }, 'email mailbox run');
    }
    return run;
  }
}

// The schedule's tick: a mailbox job for every active email channel no reader holds and none is
// queued for, marked in the same transaction (so a busy runner does not collect a backlog of runs).
export class EmailPollTick implements JobHandler {
  constructor(private readonly db: Database) {}

  async handle(): Promise<number> {
    return this.db.asSystem(async (tx) => {
      const due = await tx.query<{ organization_id: string; channel_account_id: string }>(SYSTEM_QUEUE_MAILBOXES, [1000]);
      for (const m of due) await enqueueJob(tx, emailMailboxJob, { channelAccountId: m.channel_account_id }, { organizationId: m.organization_id });
      return due.length;
    });
  }
}

// A run holds its job for at most EMAIL_IDLE_MS (at most 4 minutes) plus the catching up.
export const emailMailboxJob = defineJob<{ channelAccountId: string }>({
  name: 'messaging.email-mailbox',
  handler: EmailMailboxJob,
  retry: { maxAttempts: 1 },
});
export const emailPollJob = defineJob({ name: 'messaging.email-poll', handler: EmailPollTick });
