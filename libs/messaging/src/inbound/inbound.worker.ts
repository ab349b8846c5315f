import { defineQueue, type PassResult, type QueueWorker, settingsOf } from '@engage/platform';
import { MESSAGING_SETTINGS } from '../messaging.settings';
import type { InboundProcessor } from './inbound-processor';
import type { InboundSignal } from './inbound-receiver';

const PASS_SIZE = 100;
const GATHER_MS = 25;

// Inbound processing as a hot queue of the platform's runner (worker processes only): a pass on
// every event stored by this process, and by polling (INBOUND_POLL_MS) for events other processes
// stored. It stays a queue of its own: a pass claims up to 100 events in one transaction (docs/jobs.md).
export class InboundWorker implements QueueWorker {
  constructor(
    private readonly processor: InboundProcessor,
    private readonly signal: InboundSignal,
  ) {}

  started(wake: () => void): void {
    this.signal.onStored(wake);
  }

  // A pass that found only a few events is followed by a short pause, so under a steady stream the
  // next pass takes a batch worth its transaction instead of one or two events.
  async pass(): Promise<PassResult> {
    const settled = await this.processor.processDue(PASS_SIZE);
    if (settled === 0) return undefined;
    return settled < PASS_SIZE / 4 ? GATHER_MS : 0;
  }
}

export const inboundQueue = defineQueue({
  name: 'messaging.inbound',
  worker: InboundWorker,
  pollMs: (config) => settingsOf(config, MESSAGING_SETTINGS).INBOUND_POLL_MS,
});
