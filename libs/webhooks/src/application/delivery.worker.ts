import { Inject, Injectable } from '@nestjs/common';
import { type Config, CONFIG, type ConfigOf, defineQueue, PLATFORM_LOG, type QueueWorker, settingsOf } from '@engage/platform';
import { WEBHOOK_SETTINGS } from '../webhooks.settings';
import type { Logger } from 'pino';
import type { DeliveryJob } from '../infrastructure/webhook.sql';
import { DeliveryGone, DeliveryRunner, type SentAttempt } from './delivery-runner';

// An attempt waiting to be recorded again, since when and how often it failed to be.
interface Unrecorded {
  sent: SentAttempt;
  failedSince: number;
  failures: number;
}

// Deliveries queued by other processes and retries that fall due are found by polling this often.
const POLL_MS = 500;
// Finished attempts recorded per transaction at most.
const RECORD_BATCH = 200;
// An attempt whose outcome could not be recorded (the database unreachable) is recorded again after
// 250 ms, doubling up to 2 s, for at most 60 s: soon after the database is back its slot is free and
// the delivery is finished or rescheduled, instead of its lease holding the slot for time-out + 60 s.
// Given up after that, the lease (time-out + 60 s from the claim) lapses and it is sent again.
const RERECORD_BASE_MS = 250;
const RERECORD_MAX_MS = 2000;
const RERECORD_FOR_MS = 60_000;

// Webhook deliveries as a hot queue of the platform's runner (worker processes only): each pass
// claims due deliveries and sends them without waiting for one another, so a slow endpoint holds
// at most WEBHOOK_CONCURRENCY_PER_ENDPOINT slots while the others flow. It stays a queue of its
// own for the per-endpoint limit across replicas and the batched recording (docs/jobs.md).
@Injectable()
export class DeliveryWorker implements QueueWorker {
  private wakeLoop: (() => void) | undefined;
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private unrecorded: SentAttempt[] = [];
  private retrying: Unrecorded[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private recording = false;
  private stopping = false;
  private readonly config: ConfigOf<typeof WEBHOOK_SETTINGS>;

  constructor(
    @Inject(PLATFORM_LOG) private readonly log: Logger,
    @Inject(CONFIG) config: Config,
    private readonly runner: DeliveryRunner,
  ) {
    this.config = settingsOf(config, WEBHOOK_SETTINGS);
  }

  started(wake: () => void): void {
    this.wakeLoop = wake;
  }

  // Claim now (new deliveries were queued, or a slot freed up); nothing where no loop runs (api).
  wake(): void {
    this.wakeLoop?.();
  }

  // One claim round: sends run in the background, and each slot they free wakes the loop.
  async pass(): Promise<undefined> {
    await this.tick();
    return undefined;
  }

  // One claim round; sends run in the background. Answers how many were started.
  async tick(): Promise<number> {
    const jobs = await this.runner.claim(this.config.WEBHOOK_MAX_IN_FLIGHT - this.inFlight, this.config.WEBHOOK_CONCURRENCY_PER_ENDPOINT);
    for (const job of jobs) this.start(job);
    return jobs.length;
  }

  private start(job: DeliveryJob): void {
    this.inFlight += 1;
    this.runner.send(job).then(
      (sent) => {
        this.unrecorded.push(sent);
        this.record();
      },
      (error) => {
        // Not recorded: the lease expires and the delivery is claimed again.
        this.log.warn({ err: error, delivery_id: job.id }, 'webhook delivery attempt failed before it could be recorded');
        this.settled(1);
      },
    );
  }

  // Attempts that finish while a batch is being recorded wait and go together in the next one: a
  // few round trips per batch instead of six per attempt, and one claim round per batch. A slot (and
  // its lease) is freed only once its attempt is recorded, or given up on (below).
  private record(): void {
    if (this.recording) return;
    this.recording = true;
    void (async () => {
      try {
        while (this.unrecorded.length > 0) await this.recordBatch(this.unrecorded.splice(0, RECORD_BATCH), []);
      } finally {
        this.recording = false;
      }
    })();
  }

  // `again`: the attempts of the batch that failed to be recorded before (parallel to the head of it).
  private async recordBatch(batch: SentAttempt[], again: Unrecorded[]): Promise<void> {
    // A slot freed by a success goes straight to its endpoint's next due delivery, unless the process
    // is full (then the claim shares it out, oldest due first across endpoints) or stopping.
    const handedOver: DeliveryJob[] = [];
    const handOver = this.stopping || this.inFlight > this.config.WEBHOOK_MAX_IN_FLIGHT - 1 ? undefined : (jobs: DeliveryJob[]) => handedOver.push(...jobs);
    const results = await this.runner.recordMany(batch, { maybeRecorded: again.length > 0, handOver }).catch((error: Error) => batch.map(() => error));
    for (const job of handedOver) this.start(job);
    let done = 0;
    results.forEach((result, i) => {
      if (!(result instanceof Error)) return void (done += 1);
      const previous = again[i];
      const failedSince = previous?.failedSince ?? Date.now();
      // Gone (its configuration deleted) is final; anything else is tried again for a while.
      if (!(result instanceof DeliveryGone) && !this.stopping && Date.now() - failedSince < RERECORD_FOR_MS) {
        this.retrying.push({ sent: batch[i], failedSince, failures: (previous?.failures ?? 0) + 1 });
        return;
      }
      done += 1;
      this.log.warn({ err: result, delivery_id: batch[i].job.id }, 'webhook delivery attempt could not be recorded');
    });
    if (this.retrying.length > 0) this.scheduleRetry();
    if (done > 0) this.settled(done);
  }

  // Unrecorded attempts are tried again together, after the backoff of the one that failed least often.
  private scheduleRetry(): void {
    if (this.retryTimer) return;
    const failures = Math.min(...this.retrying.map((item) => item.failures));
    const delay = Math.min(RERECORD_MAX_MS, RERECORD_BASE_MS * 2 ** (failures - 1));
    this.retryTimer = setTimeout(() => this.recordAgain(), delay);
  }

  private recordAgain(): void {
    this.retryTimer = undefined;
    const again = this.retrying.splice(0, RECORD_BATCH);
    void this.recordBatch(
      again.map((item) => item.sent),
      again,
    ).catch((error: unknown) => this.log.warn({ err: error }, 'webhook delivery attempts could not be recorded again'));
  }

  private settled(count: number): void {
    this.inFlight -= count;
    if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    this.wake();
  }

  // On stop: attempts still unrecorded are tried once more now, then given up on (their leases
  // lapse and they are sent again), so a database still away does not hold up the shutdown.
  drained(): Promise<void> {
    this.stopping = true;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.recordAgain();
    }
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}

export const deliveryQueue = defineQueue({ name: 'webhooks.deliveries', worker: DeliveryWorker, pollMs: () => POLL_MS });
export const webhooksQueues = [deliveryQueue];
