import { randomUUID } from 'node:crypto';
import { type Database, defineJob, type JobHandler } from '@engage/platform';
import { DomainError, isRole, type RequestContext } from '@engage/shared-kernel';
import { OUTCOME_UNKNOWN, type ScheduledMessageRow } from './scheduled-messages';
import {
  AUTHOR_ROLE,
  CLAIM_DUE_SCHEDULED_MESSAGE,
  MESSAGES_OF_SCHEDULED,
  RECORD_SCHEDULED_OUTCOME,
  SETTLE_STALE_SCHEDULED_SEND,
  STALE_SCHEDULED_SENDS,
} from './scheduled-messages.sql';
import type { ScheduledDelivery } from './scheduled-delivery';

// The pass runs every 10 s (messagingSchedules): a message goes out 0-10 s after send_at, plus the
// runner's poll.
export const SCHEDULED_SEND_EVERY_MS = 10_000;

export interface ScheduledSendOptions {
  // A claimed send older than this has lost its process (longer than any send takes: provider
  // time-outs, the gaps between attachments).
  staleAfterMs: number;
  // Sends at once per pass; each claims the next due message when it is done.
  lanes: number;
  // A pass stops claiming after this; the next tick goes on.
  budgetMs: number;
}

export const SCHEDULED_SEND_DEFAULTS: ScheduledSendOptions = { staleAfterMs: 10 * 60_000, lanes: 4, budgetMs: 30_000 };

type Outcome = { status: 'sent' | 'failed'; messageIds: string[]; error: string | null };

// Sends due scheduled messages, once each. A message is claimed by one statement (`scheduled` →
// `sending`, SKIP LOCKED), so two passes or two workers never take the same one, and a member's
// cancel or a customer's reply that got there first leaves nothing to claim. Then it goes out as its
// author's reply and its outcome is recorded. A send whose process died after the claim is never sent
// again: after `staleAfterMs` it is settled from the messages it wrote (sent if one went out, else
// failed with outcome_unknown).
export class ScheduledSendPass implements JobHandler {
  private readonly options: ScheduledSendOptions;

  constructor(
    private readonly db: Database,
    private readonly delivery: ScheduledDelivery,
    options: Partial<ScheduledSendOptions> = {},
    private readonly now: () => number = () => Date.now(),
  ) {
    this.options = { ...SCHEDULED_SEND_DEFAULTS, ...options };
  }

  async handle(): Promise<void> {
    await this.settleStale();
    await this.sendDue();
  }

  // Returns the messages it sent or failed.
  async sendDue(): Promise<ScheduledMessageRow[]> {
    const until = this.now() + this.options.budgetMs;
    const done: ScheduledMessageRow[] = [];
    const lane = async () => {
      while (this.now() < until) {
        const [claimed] = await this.db.systemQuery<ScheduledMessageRow>(CLAIM_DUE_SCHEDULED_MESSAGE);
        if (!claimed) return;
        const recorded = await this.send(claimed);
        if (recorded) done.push(recorded);
      }
    };
    // Every lane ends before the pass does (a failed one does not leave the others running unseen).
    const lanes = await Promise.allSettled(Array.from({ length: this.options.lanes }, lane));
    const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    return done;
  }

  // Claimed sends whose process stopped: settled from the messages they wrote, never resent.
  async settleStale(limit = 100): Promise<ScheduledMessageRow[]> {
    const cutoff = new Date(this.now() - this.options.staleAfterMs);
    const stale = await this.db.systemQuery<{ id: string; organization_id: string; conversation_id: string }>(STALE_SCHEDULED_SENDS, [cutoff, limit]);
    const settled: ScheduledMessageRow[] = [];
    for (const { id, organization_id, conversation_id } of stale) {
      const ctx: RequestContext = { organizationId: organization_id, userId: null, role: 'SYSTEM', requestId: randomUUID() };
      const [row] = await this.db.inTenant(ctx, (tx) =>
        tx.query<ScheduledMessageRow>(SETTLE_STALE_SCHEDULED_SEND, [id, cutoff, OUTCOME_UNKNOWN, conversation_id]),
      );
      if (row) settled.push(row);
    }
    return settled;
  }

  private async send(claimed: ScheduledMessageRow): Promise<ScheduledMessageRow | null> {
    const system: RequestContext = { organizationId: claimed.organization_id, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const outcome = await this.attempt(claimed, system);
    // A failure to record leaves it `sending`: settled later from its messages, not resent.
    const [row] = await this.db.inTenant(system, (tx) =>
      tx.query<ScheduledMessageRow>(RECORD_SCHEDULED_OUTCOME, [claimed.id, outcome.status, outcome.messageIds, outcome.error]),
    );
    return row ?? null;
  }

  private async attempt(claimed: ScheduledMessageRow, system: RequestContext): Promise<Outcome> {
    const author = await this.author(claimed, system);
    if (!author) return { status: 'failed', messageIds: [], error: 'author_not_member: its author is no longer a member of the organization' };
    try {
      const { messageIds } = await this.delivery(author, claimed.conversation_id, {
        message: claimed.text,
        mediaUrls: claimed.media_urls,
        author: { origin: 'scheduled', originId: claimed.id },
      });
      return { status: 'sent', messageIds, error: null };
    } catch (error) {
      const messageIds = await this.messagesOf(claimed, system).catch(() => []);
      const reason = error instanceof DomainError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
      return { status: 'failed', messageIds, error: reason || OUTCOME_UNKNOWN };
    }
  }

  // The author as they are now: their user id and current role, so the send is theirs (a person's
  // reply, with the channel's rules for people). Null once they left the organization.
  private async author(claimed: ScheduledMessageRow, system: RequestContext): Promise<RequestContext | null> {
    const [member] = await this.db.inTenant(system, (tx) => tx.query<{ role: string }>(AUTHOR_ROLE, [claimed.created_by]), { readOnly: true });
    if (!member || !isRole(member.role)) return null;
    return { organizationId: claimed.organization_id, userId: claimed.created_by, role: member.role, requestId: randomUUID() };
  }

  private async messagesOf(claimed: ScheduledMessageRow, system: RequestContext): Promise<string[]> {
    const rows = await this.db.inTenant(system, (tx) => tx.query<{ id: string }>(MESSAGES_OF_SCHEDULED, [claimed.conversation_id, claimed.id]), {
      readOnly: true,
    });
    return rows.map((r) => r.id);
  }
}

export const scheduledSendPassJob = defineJob({ name: 'messaging.scheduled-send-pass', handler: ScheduledSendPass });
