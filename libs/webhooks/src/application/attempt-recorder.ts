import type { Tx } from '@engage/platform';
import type { Clock } from '@engage/shared-kernel';
import { TEST_EVENT_KIND } from '../domain/event-kinds';
import { classify, DISABLE_AFTER_MS, retryDelayMs } from '../domain/retry-policy';
import {
  CLEAR_FAILING,
  type DeliveryJob,
  DISABLE_CONFIGURATION,
  FINISH_DELIVERY,
  FINISH_SUCCESSES,
  INSERT_LOG,
  LOGGED_ATTEMPTS,
  MARK_FAILING,
} from '../infrastructure/webhook.sql';

export interface AttemptOutcome {
  delivery_id: string;
  log_id: string;
  success: boolean;
  status: 'success' | 'failed' | 'retrying';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempt: number;
  next_attempt_at: string | null;
}

export interface DisabledNotice {
  organizationId: string;
  webhookId: string;
  name: string;
  url: string;
  reason: string;
}

// An attempt is recorded again for about a minute at most (delivery.worker.ts); its log row, if a
// record committed unseen, is younger than this.
const LOGGED_WITHIN_MS = 10 * 60_000;

// An attempt sent and not yet recorded.
export interface SentAttempt {
  job: DeliveryJob;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

// Records attempts of one organization inside its tenant transaction: the delivery's new state, a
// log row per attempt, the retry decision and the configuration's failure streak. Successes go in
// one statement however many there are; other outcomes one by one (each may disable its endpoint).
export class AttemptRecorder {
  constructor(
    private readonly clock: Clock,
    private readonly random: () => number,
  ) {}

  // Outcomes in the order of `sent`. `disabled` hears of each configuration this disabled.
  // `maybeRecorded`: attempts already logged (a record whose COMMIT committed unseen) are left as they are.
  // `freed` gets the endpoint of each success whose lease this ended (one entry per slot freed).
  async recordIn(
    tx: Tx,
    all: SentAttempt[],
    disabled: (notice: DisabledNotice) => void,
    options: { maybeRecorded?: boolean; freed?: string[] } = {},
  ): Promise<AttemptOutcome[]> {
    const now = this.clock.now();
    const outcomes = options.maybeRecorded ? await this.alreadyLogged(tx, all, now) : new Map<SentAttempt, AttemptOutcome>();
    const sent = outcomes.size > 0 ? all.filter((item) => !outcomes.has(item)) : all;
    const seen = new Set<string>();
    const successes: SentAttempt[] = [];
    const others = new Set<SentAttempt>();
    for (const item of sent) {
      // The set statement needs distinct deliveries; a repeat (an expired lease claimed again) goes alone.
      if (!seen.has(item.job.id) && classify(item.statusCode).kind === 'success') successes.push(item);
      else others.add(item);
      seen.add(item.job.id);
    }
    // `sent` is in completion order: a failure followed by a success of the same endpoint does not
    // start a failure streak (the successes, recorded first, clear it), one after the last does.
    const lastSuccess = new Map<string, number>();
    sent.forEach((item, i) => {
      if (classify(item.statusCode).kind === 'success' && item.job.event !== TEST_EVENT_KIND) lastSuccess.set(item.job.webhook_id, i);
    });
    if (successes.length > 0) for (const [item, outcome] of await this.recordSuccesses(tx, successes, now, options.freed)) outcomes.set(item, outcome);
    for (const [i, item] of sent.entries()) {
      if (!others.has(item)) continue;
      const recovered = (lastSuccess.get(item.job.webhook_id) ?? -1) > i;
      outcomes.set(item, await this.recordOne(tx, item, now, recovered, disabled));
    }
    return all.map((item) => outcomes.get(item)!);
  }

  // Outcomes of the attempts of `sent` that are logged already (a delivery id and attempt number
  // name one attempt), as they were logged.
  private async alreadyLogged(tx: Tx, sent: SentAttempt[], now: Date): Promise<Map<SentAttempt, AttemptOutcome>> {
    const rows = await tx.query<{ id: string; delivery_id: string; attempt: number; status: AttemptOutcome['status'] }>(LOGGED_ATTEMPTS, [
      [...new Set(sent.map((item) => item.job.webhook_id))],
      sent.map((item) => item.job.id),
      new Date(now.getTime() - LOGGED_WITHIN_MS),
    ]);
    const logged = new Map(rows.map((row) => [`${row.delivery_id}:${row.attempt}`, row]));
    const found = new Map<SentAttempt, AttemptOutcome>();
    for (const item of sent) {
      const row = logged.get(`${item.job.id}:${item.job.attempts}`);
      if (row) found.set(item, outcomeOf(item, row.id, row.status, null));
    }
    return found;
  }

  private async recordSuccesses(tx: Tx, items: SentAttempt[], now: Date, freed?: string[]): Promise<[SentAttempt, AttemptOutcome][]> {
    const clear = [...new Set(items.filter((item) => item.job.event !== TEST_EVENT_KIND).map((item) => item.job.webhook_id))];
    const rows = await tx.query<{ id: string; delivery_id: string; freed: boolean }>(FINISH_SUCCESSES, [
      items.map((item) => item.job.id),
      items.map((item) => item.job.webhook_id),
      items.map((item) => item.job.event),
      items.map((item) => item.statusCode),
      items.map((item) => item.durationMs),
      items.map((item) => item.job.attempts),
      now,
      clear,
    ]);
    const logIds = new Map(rows.map((row) => [row.delivery_id, row.id]));
    const webhookOf = new Map(items.map((item) => [item.job.id, item.job.webhook_id]));
    for (const row of rows) if (row.freed) freed?.push(webhookOf.get(row.delivery_id)!);
    // A delivery gone meanwhile (its configuration deleted) is not logged; its outcome has no log id.
    return items.map((item) => [item, outcomeOf(item, logIds.get(item.job.id) ?? '', 'success', null)]);
  }

  private async recordOne(tx: Tx, sent: SentAttempt, now: Date, recovered: boolean, disabledWith: (notice: DisabledNotice) => void): Promise<AttemptOutcome> {
    const { job, statusCode, error, durationMs } = sent;
    const outcome = classify(statusCode);
    const affectsConfiguration = job.event !== TEST_EVENT_KIND;
    let status: AttemptOutcome['status'];
    let nextAt: Date | null = null;
    let disabledReason: string | null = null;
    if (outcome.kind === 'success') {
      status = 'success';
      if (affectsConfiguration) await tx.execute(CLEAR_FAILING, [job.webhook_id]);
    } else {
      const delay = outcome.kind === 'failure' && job.automatic ? retryDelayMs(job.attempts, this.random) : null;
      status = delay === null ? 'failed' : 'retrying';
      nextAt = delay === null ? null : new Date(now.getTime() + delay);
      if (affectsConfiguration && outcome.kind === 'gone') disabledReason = `the endpoint answered 410 Gone at ${now.toISOString()}`;
      if (affectsConfiguration && outcome.kind === 'failure' && !recovered) {
        const [streak] = await tx.query<{ failing_since: Date }>(MARK_FAILING, [job.webhook_id, now]);
        const since = streak ? new Date(streak.failing_since) : now;
        if (now.getTime() - since.getTime() >= DISABLE_AFTER_MS) disabledReason = `failing continuously since ${since.toISOString()} (5 days)`;
      }
    }
    const disabled = disabledReason !== null && (await tx.query(DISABLE_CONFIGURATION, [job.webhook_id, disabledReason, now])).length > 0;
    if (disabled) {
      disabledWith({ organizationId: job.organization_id, webhookId: job.webhook_id, name: job.webhook_name, url: job.url, reason: disabledReason! });
      status = 'failed';
      nextAt = null;
    }
    // Only the latest attempt sets the delivery's state: a late record (its lease expired and the
    // delivery was claimed again) is logged but neither frees nor reschedules the newer attempt.
    await tx.execute(FINISH_DELIVERY, [job.id, status, nextAt, now, job.attempts]);
    const [log] = await tx.query<{ id: string }>(INSERT_LOG, [job.webhook_id, job.id, job.event, status, statusCode, error, durationMs, job.attempts, now]);
    // The notice that the configuration was disabled, logged just after the attempt that caused it.
    if (disabled)
      await tx.query(INSERT_LOG, [
        job.webhook_id,
        job.id,
        job.event,
        'failed',
        statusCode,
        `webhook disabled: ${disabledReason}`,
        0,
        job.attempts,
        new Date(now.getTime() + 1),
      ]);
    return outcomeOf(sent, log.id, status, nextAt);
  }
}

function outcomeOf(sent: SentAttempt, logId: string, status: AttemptOutcome['status'], nextAt: Date | null): AttemptOutcome {
  return {
    delivery_id: sent.job.id,
    log_id: logId,
    success: status === 'success',
    status,
    status_code: sent.statusCode,
    duration_ms: sent.durationMs,
    error: sent.error,
    attempt: sent.job.attempts,
    next_attempt_at: nextAt?.toISOString() ?? null,
  };
}
