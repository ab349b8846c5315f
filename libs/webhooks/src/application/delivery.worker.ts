import { Inject, Injectable } from '@nestjs/common';
import { type Config, CONFIG, type ConfigOf, defineQueue, PLATFORM_LOG, type QueueWorker, settingsOf } from '@engage/platform';
import { WEBHOOK_SETTINGS } from '../webhooks.settings';
import type { Logger } from 'pino';
import { DeliveryRunner, type SentAttempt } from './delivery-runner';

// Deliveries queued by other processes and retries that fall due are found by polling this often.
const POLL_MS = 500;
// Finished attempts recorded per transaction at most.
const RECORD_BATCH = 200;

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
  private recording = false;
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
    for (const job of jobs) {
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
    return jobs.length;
  }

  // Attempts that finish while a batch is being recorded wait and go together in the next one: a
  // few round trips per batch instead of six per attempt, and one claim round per batch. A slot (and
  // its lease) is freed only once its attempt is recorded.
  private record(): void {
    if (this.recording) return;
    this.recording = true;
    void (async () => {
      try {
        while (this.unrecorded.length > 0) {
          const batch = this.unrecorded.splice(0, RECORD_BATCH);
          const results = await this.runner.recordMany(batch).catch((error: Error) => batch.map(() => error));
          results.forEach((result, i) => {
            if (result instanceof Error) this.log.warn({ err: result, delivery_id: batch[i].job.id }, 'webhook delivery attempt could not be recorded');
          });
          this.settled(batch.length);
        }
      } finally {
        this.recording = false;
      }
    })();
  }

  private settled(count: number): void {
    this.inFlight -= count;
    if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    this.wake();
  }

  drained(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}

export const deliveryQueue = defineQueue({ name: 'webhooks.deliveries', worker: DeliveryWorker, pollMs: () => POLL_MS });
export const webhooksQueues = [deliveryQueue];
