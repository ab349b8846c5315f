import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { InboundProcessor } from './inbound-processor';
import type { InboundSignal } from './inbound-receiver';

// Runs the processor in worker processes: on every stored event of this process, and by polling
// for events other processes stored. One pass at a time.
export class InboundWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly processor: InboundProcessor,
    private readonly signal: InboundSignal,
    private readonly enabled: boolean,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.signal.onStored(() => this.kick());
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && (await this.processor.processDue(100)) > 0);
    } catch (error) {
      this.onError(error);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
