// What a pass answers: how long to wait before the next pass (0: at once; wake-ups do not cut the
// wait short), or nothing to wait for a wake-up or the next poll.
export type PassResult = number | undefined | void;

export interface QueueLoopOptions {
  // How often a pass runs when nothing wakes the loop (work other processes queued, retries due later).
  pollMs: number;
  onError?: (error: unknown) => void;
}

const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 30_000;

// Drives a queue's passes, one at a time: at once when woken (a wake-up during a pass makes another
// pass follow it), when the pass asks for it, else on a poll every pollMs (on a fixed cadence, as
// an interval would: a poll that falls during a pass makes another pass follow it). After a failed pass it backs off
// (250 ms doubling, at most 30 s) and wake-ups wait for the backoff, so a database that is down is
// not hammered. stop() waits for the pass under way.
export class QueueLoop {
  private stopped = true;
  private woken = false;
  private failures = 0;
  private done: Promise<void> | undefined;
  private interrupt: { resolve: () => void; byWake: boolean } | undefined;
  private startedAt = 0;

  constructor(
    private readonly pass: () => Promise<PassResult>,
    private readonly options: QueueLoopOptions,
  ) {}

  get running(): boolean {
    return !this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.startedAt = Date.now();
    this.done = this.loop();
  }

  wake(): void {
    if (this.stopped) return;
    this.woken = true;
    if (this.interrupt?.byWake) this.interrupt.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.interrupt?.resolve();
    await this.done;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      const passStartedAt = Date.now();
      let wait: number | undefined;
      try {
        const asked = await this.pass();
        this.failures = 0;
        wait = typeof asked === 'number' ? asked : undefined;
      } catch (error) {
        this.failures += 1;
        this.options.onError?.(error);
        wait = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(this.failures, 7));
      }
      if (this.stopped) break;
      if (wait === undefined) {
        const untilPoll = this.untilNextPoll(passStartedAt);
        if (!this.woken && untilPoll > 0) await this.sleep(untilPoll, true);
      } else if (wait > 0) await this.sleep(wait, false);
    }
  }

  // 0 when a poll fell due since the pass started, else the time to the next one.
  private untilNextPoll(passStartedAt: number): number {
    const { pollMs } = this.options;
    const now = Date.now();
    const pollsBy = (at: number) => Math.floor((at - this.startedAt) / pollMs);
    if (pollsBy(now) > pollsBy(passStartedAt)) return 0;
    return this.startedAt + (pollsBy(now) + 1) * pollMs - now;
  }

  private sleep(ms: number, byWake: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.interrupt?.resolve(), ms);
      this.interrupt = {
        byWake,
        resolve: () => {
          clearTimeout(timer);
          this.interrupt = undefined;
          resolve();
        },
      };
    });
  }
}
