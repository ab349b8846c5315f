import { randomUUID } from 'node:crypto';
import { defineQueue, type Database, type PassResult, type QueueWorker, type Tx } from '@engage/platform';
import { type OutboundDispatcher, upsertConversation } from '@engage/messaging';
import { type Clock, DomainError, type RequestContext } from '@engage/shared-kernel';
import type { BroadcastRow } from '../domain/broadcast';
import { renderFor } from '../domain/content';
import {
  CLAIM_RECIPIENT,
  NEXT_RECIPIENTS,
  REFUSED,
  SET_MESSAGE,
  SYSTEM_COMPLETE,
  SYSTEM_DUE_SCHEDULED,
  SYSTEM_LEASE_SENDING,
  SYSTEM_RELEASE,
  WAITING_IN_QUEUE,
} from '../infrastructure/campaigns.sql';
import type { BroadcastsService } from './broadcasts.service';

export interface HandOutOptions {
  // Recipients handed to the queue per broadcast per pass.
  batch: number;
  // At most this many of a broadcast's messages wait in the queue at once (what a pause withdraws).
  window: number;
  // How long a worker holds a broadcast it hands out (longer than a batch takes).
  leaseSeconds: number;
}

export const HAND_OUT_DEFAULTS: HandOutOptions = { batch: 50, window: 200, leaseSeconds: 60 };
const BROADCASTS_PER_PASS = 8;
const DUE_PER_PASS = 10;

// A recipient another process handed over first (or whose broadcast stopped sending): its
// transaction is rolled back and nothing is stored.
class NotClaimed extends Error {}

const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

// The campaigns' worker (a hot queue of worker processes): starts scheduled broadcasts whose time
// came, hands each sending broadcast's next recipients to messaging's paced queue, and completes
// broadcasts every recipient of which has an outcome. A recipient is handed over by storing its
// message through OutboundDispatcher.enqueue with the checkpoint (`queued_at`) set in the same
// transaction, so a worker killed at any point leaves each recipient either handed over with its
// message or not at all: no one twice, no one left out.
export class BroadcastPass implements QueueWorker {
  private readonly options: HandOutOptions;

  constructor(
    private readonly db: Database,
    private readonly broadcasts: BroadcastsService,
    private readonly dispatcher: OutboundDispatcher,
    private readonly clock: Clock,
    options: Partial<HandOutOptions> = {},
  ) {
    this.options = { ...HAND_OUT_DEFAULTS, ...options };
  }

  async pass(): Promise<PassResult> {
    await this.startDue();
    const handed = await this.handOut();
    await this.db.systemQuery(SYSTEM_COMPLETE, [this.clock.now()]);
    return handed > 0 ? 0 : undefined;
  }

  async startDue(): Promise<number> {
    const due = await this.db.systemQuery<{ id: string; organization_id: string }>(SYSTEM_DUE_SCHEDULED, [this.clock.now(), DUE_PER_PASS]);
    let started = 0;
    for (const { id, organization_id } of due) {
      const ctx = systemCtx(organization_id);
      try {
        await this.db.inTenant(ctx, (tx) => this.broadcasts.startIn(tx, ctx, id));
        started += 1;
      } catch (error) {
        // Cancelled or started by hand meanwhile: nothing to do.
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return started;
  }

  // Recipients handed over in this pass.
  async handOut(): Promise<number> {
    const leased = await this.db.systemQuery<BroadcastRow>(SYSTEM_LEASE_SENDING, [this.clock.now(), this.options.leaseSeconds, BROADCASTS_PER_PASS]);
    let handed = 0;
    for (const broadcast of leased) {
      try {
        handed += await this.handBatch(broadcast);
      } finally {
        await this.db.systemQuery(SYSTEM_RELEASE, [broadcast.id, this.clock.now()]);
      }
    }
    return handed;
  }

  private async handBatch(broadcast: BroadcastRow): Promise<number> {
    const ctx = systemCtx(broadcast.organization_id);
    const next = await this.db.inTenant(ctx, async (tx) => {
      const [waiting] = await tx.query<{ n: number }>(WAITING_IN_QUEUE, [broadcast.id]);
      const room = Math.min(this.options.batch, this.options.window - waiting.n);
      if (room <= 0) return [];
      return tx.query<{ id: string; contact_id: string; phone: string; contact: Record<string, unknown> | null }>(NEXT_RECIPIENTS, [broadcast.id, room]);
    });
    let handed = 0;
    for (const recipient of next) {
      if (await this.handOver(ctx, broadcast, recipient)) handed += 1;
    }
    return handed;
  }

  private async handOver(
    ctx: RequestContext,
    broadcast: BroadcastRow,
    recipient: { id: string; contact_id: string; phone: string; contact: Record<string, unknown> | null },
  ): Promise<boolean> {
    const now = this.clock.now();
    if (!recipient.contact) {
      await this.db.inTenant(ctx, (tx) => tx.query(REFUSED, [recipient.id, 'the contact was deleted before the message was queued', now]));
      return false;
    }
    const { content } = broadcast;
    const resolve = async (tx: Tx) => {
      const [claimed] = await tx.query(CLAIM_RECIPIENT, [recipient.id, now, broadcast.id]);
      if (!claimed) throw new NotClaimed();
      return upsertConversation(tx, ctx, recipient.contact_id, broadcast.channel_account_id, 0);
    };
    try {
      // The recipient's message id is written with the message, in its storing transaction.
      const stored = async (tx: Tx, messageIds: string[]) => {
        await tx.query(SET_MESSAGE, [recipient.id, messageIds[0], now]);
      };
      await this.dispatcher.enqueue(
        ctx,
        { kind: broadcast.channel_kind, resolve, stored },
        {
          message: broadcast.personalised ? renderFor(content.text, recipient.contact) : content.text,
          mediaUrls: content.media_url ? [content.media_url] : [],
          ...(content.media_kind ? { mediaKind: content.media_kind as 'image' | 'video' | 'document' } : {}),
          to: recipient.phone,
          author: { origin: 'broadcast', originId: broadcast.id },
          metadata: { broadcast_recipient_id: recipient.id },
        },
      );
      return true;
    } catch (error) {
      if (error instanceof NotClaimed) return false;
      if (!(error instanceof DomainError)) throw error;
      // Refused before anything was stored (the channel's rules, a plan's limit): an outcome.
      await this.db.inTenant(ctx, (tx) => tx.query(REFUSED, [recipient.id, `${error.code}: ${error.message}`.slice(0, 2000), now]));
      return false;
    }
  }
}

export const broadcastQueue = defineQueue({ name: 'campaigns.broadcasts', worker: BroadcastPass, pollMs: () => 1_000 });
