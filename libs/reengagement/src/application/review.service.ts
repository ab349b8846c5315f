import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import type { ConversationService } from '@engage/messaging';
import { isNudgeStatus, type NudgeRow, NUDGE_STATUSES } from '../domain/nudge';
import { CONVERSATION_STATE, ENABLE_CONVERSATION, LIST_NUDGES, NUDGE_BY_ID, SKIP } from '../infrastructure/reengagement.sql';
import type { NudgeSender } from './nudge-sender';
import { toNudgeView } from './nudge-view';

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);
const assertId = (id: string, what: string) => {
  if (!isUuid(id)) throw invalid(`${what} id must be a UUID`);
};

// Agents' review of drafts (approval mode) and the per-conversation switch.
export class ReviewService {
  constructor(
    private readonly db: Database,
    private readonly sender: NudgeSender,
    private readonly conversations: ConversationService,
  ) {}

  async list(ctx: RequestContext, q: { status?: string; page: number; limit: number }) {
    if (q.status !== undefined && !isNudgeStatus(q.status)) throw invalid(`status must be one of ${NUDGE_STATUSES.join(', ')}`);
    const rows = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(LIST_NUDGES, [q.status ?? null, q.limit, (q.page - 1) * q.limit]));
    return { drafts: rows.map(toNudgeView), page: q.page, limit: q.limit };
  }

  // Approve (the AI's text) or edit (the agent's text): sent at once through the channel's adapter.
  async send(ctx: RequestContext, id: string, editedText?: string) {
    const nudge = await this.find(ctx, id);
    this.assertDraft(nudge);
    const result = await this.sender.send(ctx, id, editedText ?? nudge.text ?? '', ['draft'], ctx.userId);
    if (!result.sent && !result.nudge) {
      this.assertDraft(await this.find(ctx, id));
      throw new DomainError('unprocessable', 'reengagement.window_closed', 'The 24-hour window of this draft has closed: it can no longer be sent');
    }
    if (!result.sent) {
      const view = toNudgeView(result.nudge!);
      throw new DomainError('unprocessable', 'reengagement.send_refused', `The nudge was not sent: ${result.reason}`, { nudge: view });
    }
    return { nudge: toNudgeView(result.nudge) };
  }

  async skip(ctx: RequestContext, id: string) {
    await this.find(ctx, id);
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(SKIP, [id, ctx.userId]));
    if (!row) this.assertDraft(await this.find(ctx, id));
    return { nudge: toNudgeView(row) };
  }

  async conversationState(ctx: RequestContext, conversationId: string) {
    assertId(conversationId, 'conversation');
    await this.conversations.get(ctx, conversationId, 1, 1);
    const [state] = await this.db.inTenant(ctx, (tx) => tx.query<StateRow>(CONVERSATION_STATE, [conversationId]));
    return stateView(state);
  }

  async enable(ctx: RequestContext, conversationId: string) {
    assertId(conversationId, 'conversation');
    await this.conversations.get(ctx, conversationId, 1, 1);
    await this.db.inTenant(ctx, (tx) => tx.query(ENABLE_CONVERSATION, [conversationId]));
    return this.conversationState(ctx, conversationId);
  }

  private async find(ctx: RequestContext, id: string): Promise<NudgeRow> {
    assertId(id, 'draft');
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(NUDGE_BY_ID, [id]));
    if (!row) throw NotFound('draft', id);
    return row;
  }

  // Only a `draft` (waiting for an agent's approval) can be approved, edited or skipped.
  private assertDraft(nudge: NudgeRow): void {
    if (nudge.status !== 'draft') {
      const message = `This nudge is ${nudge.status}, not draft (waiting for an agent's approval): only a draft can be approved, edited or skipped`;
      throw new DomainError('conflict', 'reengagement.not_a_draft', message, { status: nudge.status });
    }
  }
}

interface StateRow {
  conversation_id: string;
  unanswered_count: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const stateView = (row: StateRow) => ({
  conversation_id: row.conversation_id,
  unanswered_count: row.unanswered_count,
  disabled: row.disabled_at !== null,
  disabled_at: row.disabled_at ? new Date(row.disabled_at).toISOString() : null,
  disabled_reason: row.disabled_reason,
});
