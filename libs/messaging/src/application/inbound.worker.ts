import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { InboundProcessor } from './inbound-processor';
import type { InboundSignal } from './inbound-receiver';

const PASS_SIZE = 100;
const GATHER_MS = 25;

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
      // A pass that found only a few events is followed by a short pause, so under a steady stream
      // the next pass takes a batch worth its transaction instead of one or two events.
      for (let settled = await this.processor.processDue(PASS_SIZE); settled > 0 && !this.stopped; settled = await this.processor.processDue(PASS_SIZE)) {
        if (settled < PASS_SIZE / 4) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      }
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
