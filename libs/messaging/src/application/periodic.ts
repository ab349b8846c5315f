import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

// A background duty of worker processes: run every `everyMs`, one run at a time (a run still under
// way when the next is due is not doubled), and shutdown waits for the run under way.
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.run()
        .catch(this.onError)
        .finally(() => (this.running = undefined));
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}

// A Periodic that starts with the application (when enabled) and stops with it: subclasses say
// only what one run does.
export abstract class PeriodicDuty implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly periodic: Periodic;

  protected constructor(
    private readonly schedule: { everyMs: number; enabled: boolean },
    onError: (error: unknown) => void,
  ) {
    this.periodic = new Periodic(() => this.runOnce(), schedule.everyMs, onError);
  }

  protected abstract runOnce(): Promise<unknown>;

  onApplicationBootstrap(): void {
    if (this.schedule.enabled) this.periodic.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }
}
