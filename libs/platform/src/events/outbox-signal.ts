import { EventEmitter } from 'node:events';

// Tells an in-process relay that events were committed, so it need not wait for its next poll.
export class OutboxSignal extends EventEmitter {
  written(): void {
    this.emit('written');
  }
}
