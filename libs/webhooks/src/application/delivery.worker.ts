import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Config, CONFIG, type ConfigOf, PLATFORM_LOG, PLATFORM_RUNTIME, type PlatformRuntime, settingsOf } from '@engage/platform';
import { WEBHOOK_SETTINGS } from '../webhooks.settings';
import type { Logger } from 'pino';
import { DeliveryRunner, type SentAttempt } from './delivery-runner';

const POLL_MS = 500;
// Finished attempts recorded per transaction at most.
const RECORD_BATCH = 200;

// Worker processes only: claims due deliveries and sends them without waiting for one another, so
// a slow endpoint holds at most WEBHOOK_CONCURRENCY_PER_ENDPOINT slots while the others flow.
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private ticking = false;
  private again = false;
  private idle: (() => void)[] = [];
  private unrecorded: SentAttempt[] = [];
  private recording = false;
  private readonly config: ConfigOf<typeof WEBHOOK_SETTINGS>;

  constructor(
    @Inject(PLATFORM_RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(PLATFORM_LOG) private readonly log: Logger,
    @Inject(CONFIG) config: Config,
    private readonly runner: DeliveryRunner,
  ) {
    this.config = settingsOf(config, WEBHOOK_SETTINGS);
  }

  onApplicationBootstrap(): void {
    if (this.runtime.role !== 'api') this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stop();
    await this.drained();
  }

  start(): void {
    this.timer ??= setInterval(() => this.wake(), POLL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  // Claim now (new deliveries were queued, or a slot freed up).
  wake(): void {
    if (!this.timer) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    this.tick()
      .catch((error) => this.log.warn({ err: error }, 'webhook delivery claim failed'))
      .finally(() => {
        this.ticking = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
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
