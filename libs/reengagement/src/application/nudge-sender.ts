import { randomUUID } from 'node:crypto';
import { DomainError, type Clock, type RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import type { OutboundDispatcher } from '@engage/messaging';
import { type NudgeRow, type NudgeStatus } from '../domain/nudge';
import { CLAIM_SEND, COUNT_UNANSWERED, SEND_FAILED, SET_MESSAGE } from '../infrastructure/reengagement.sql';
import { AI_REENGAGEMENT_SENT } from './reengagement-events';
import { toNudgeView } from './nudge-view';

export type SendResult = { sent: true; nudge: NudgeRow } | { sent: false; nudge: NudgeRow | null; reason: string };

// Sends a nudge through messaging's dispatcher as an automated message (the window rule is checked
// again there), written by re-engagement: origin `reengagement`, origin_id the nudge. The
// nudge is moved to `sent` first, so two approvals (or an approval and the scheduler) send it once;
// a refused send moves it on to `expired` (window closed) or `failed`.
export class NudgeSender {
  constructor(
    private readonly db: Database,
    private readonly dispatcher: OutboundDispatcher,
    private readonly clock: Clock,
  ) {}

  async send(ctx: RequestContext, nudgeId: string, text: string, from: NudgeStatus[], reviewer: string | null): Promise<SendResult> {
    const now = this.clock.now();
    const [claimed] = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(CLAIM_SEND, [nudgeId, text, reviewer, now, from]));
    if (!claimed) return { sent: false, nudge: null, reason: 'not_sendable' };
    let messageId: string | null = null;
    // Sent as the system, not as the reviewer: the window rule for automated messages applies.
    const system: RequestContext = { organizationId: ctx.organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    try {
      const author = { origin: 'reengagement' as const, originId: claimed.id };
      const outcome = await this.dispatcher.send(system, { conversationId: claimed.conversation_id }, { message: text, mediaUrls: [], author });
      if (outcome.failure !== null) throw new Error(outcome.failure);
      messageId = outcome.messageIds[0] ?? null;
    } catch (error) {
      const closed = error instanceof DomainError && error.code === 'channel.window_closed';
      const reason = (error as Error).message.slice(0, 500);
      const [failed] = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(SEND_FAILED, [claimed.id, closed ? 'expired' : 'failed', reason]));
      return { sent: false, nudge: failed ?? claimed, reason };
    }
    const nudge = await this.db.inTenant(ctx, async (tx) => {
      const [row] = await tx.query<NudgeRow>(SET_MESSAGE, [claimed.id, messageId]);
      await tx.execute(COUNT_UNANSWERED, [row.conversation_id]);
      const view = toNudgeView(row);
      await tx.emit([AI_REENGAGEMENT_SENT.create({ organizationId: ctx.organizationId, aggregateId: row.id, payload: { nudge: view, actor_id: reviewer } })]);
      return row;
    });
    return { sent: true, nudge };
  }
}
