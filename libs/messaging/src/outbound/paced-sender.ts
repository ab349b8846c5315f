import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import type { ConversationRow } from '../infrastructure/messaging.sql';
import type { OutboundSend } from './channel-adapter.port';
import type { Destination, OutboundDispatcher } from './dispatcher';
import type { OutboundQueueWorker, OutboundSignal } from './queue.worker';
import { ACCOUNT_LEASED, SEND_STATUSES } from './queue.sql';

// What a paced send came to when `send` answered: SENT or FAILED (with the provider's or the
// channel's words), or still QUEUED because the account's pacing holds it (it goes out later, with
// its message.sent or message.failed event).
export interface PacedOutcome {
  conversation: ConversationRow;
  messageIds: string[];
  status: 'SENT' | 'FAILED' | 'QUEUED';
  failure: string | null;
  scheduledFor: Date;
}

// How often the queue is asked for the account's next send before the message is left to the
// worker, and how long a message another process is delivering is waited for.
const TRIES = 3;
const SETTLE_MS = 5_000;
const SETTLE_POLL_MS = 50;

// An automated message (re-engagement, a rule's or a bot's answer) that should go now if the
// account's pacing lets it: stored QUEUED like any queued send, then this process takes the account
// at once (its lease, so no second provider call of the account runs beside it) and sends the
// account's next message, which is this one unless something of a higher priority waits. When the
// pacing holds the account (a gap, a cap, quiet hours), the message stays QUEUED for the worker.
export class PacedSender {
  constructor(
    private readonly db: Database,
    private readonly dispatcher: OutboundDispatcher,
    private readonly worker: Pick<OutboundQueueWorker, 'sendOn'>,
    private readonly signal: OutboundSignal,
  ) {}

  async send(ctx: RequestContext, destination: Destination, send: OutboundSend): Promise<PacedOutcome> {
    const queued = await this.dispatcher.enqueue(ctx, destination, send, { wake: false });
    const accountId = queued.conversation.channel_account_id;
    const base = { conversation: queued.conversation, messageIds: queued.messageIds, scheduledFor: queued.scheduledFor };
    try {
      const started = Date.now();
      let tries = 0;
      for (;;) {
        const took = tries < TRIES ? await this.worker.sendOn(accountId) : false;
        tries += 1;
        const rows = await this.db.inTenant(ctx, (tx) => tx.query<{ status: string; error: string | null }>(SEND_STATUSES, [queued.messageIds]));
        const failed = rows.find((r) => r.status === 'FAILED');
        if (failed) return { ...base, status: 'FAILED', failure: failed.error ?? 'failed' };
        if (rows.length > 0 && rows.every((r) => r.status === 'SENT' || r.status === 'DELIVERED' || r.status === 'READ')) {
          return { ...base, status: 'SENT', failure: null };
        }
        const inFlight = rows.some((r) => r.status === 'PENDING');
        if (!inFlight && !took) {
          // Nobody holds the account: its pacing holds the message. Held by another process: wait a moment.
          const [lease] = await this.db.inTenant(ctx, (tx) => tx.query<{ leased: boolean }>(ACCOUNT_LEASED, [accountId]));
          if (!lease?.leased) break;
        }
        if (Date.now() - started > SETTLE_MS) break;
        if (!took) await sleep(SETTLE_POLL_MS);
      }
      return { ...base, status: 'QUEUED', failure: null };
    } finally {
      // Whatever is left on the account is the worker's.
      this.signal.queued();
    }
  }
}
