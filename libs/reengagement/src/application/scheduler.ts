import { randomUUID } from 'node:crypto';
import type pino from 'pino';
import { type Clock, type RequestContext } from '@engage/shared-kernel';
import { type Database, defineJob, defineSchedule, type JobHandler } from '@engage/platform';
import { MAX_UNANSWERED, type NudgeRow, type NudgeStatus } from '../domain/nudge';
import { windowEnd } from '../domain/draft-rules';
import type { SettingsRow } from '../domain/settings';
import { CLAIM_WINDOW, DISABLE_UNANSWERED, DRAFTED, DUE_CONVERSATIONS, EXPIRE_CLOSED, SETTINGS_OF } from '../infrastructure/reengagement.sql';
import type { Drafter } from './drafter';
import type { NudgeSender } from './nudge-sender';

interface Due {
  organization_id: string;
  conversation_id: string;
  contact_id: string;
  last_customer_message_at: Date;
  window_closes_at: Date | null;
}

export interface PassResult {
  expired: number;
  due: number;
  nudged: number;
}

// Conversations taken per pass, and how many are drafted at once (each waits for the AI).
const PASS_LIMIT = 500;
const LANES = 4;

// The minute's pass (the schedule below; the job runner fires it once per tick across replicas):
// drafts whose window closed expire, conversations with 3 unanswered nudges are disabled, and each
// due conversation gets one nudge for its window. The window is claimed by inserting the nudge
// (unique per conversation and window) before the AI is asked, so concurrent passes nudge once.
export class ReengagementScheduler implements JobHandler {
  constructor(
    private readonly db: Database,
    private readonly drafter: Drafter,
    private readonly sender: NudgeSender,
    private readonly clock: Clock,
    private readonly log?: pino.Logger,
  ) {}

  async handle(): Promise<void> {
    await this.pass();
  }

  async pass(now = this.clock.now()): Promise<PassResult> {
    const expired = await this.db.asSystem(async (tx) => {
      const count = await tx.execute(EXPIRE_CLOSED, [now]);
      await tx.execute(DISABLE_UNANSWERED, [now, MAX_UNANSWERED]);
      return count;
    });
    const due = await this.db.systemQuery<Due>(DUE_CONVERSATIONS, [now, MAX_UNANSWERED, PASS_LIMIT]);
    let nudged = 0;
    const queue = [...due];
    const lane = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        try {
          if (await this.nudge(next, now)) nudged++;
        } catch (error) {
          this.log?.warn({ err: error, conversation_id: next.conversation_id }, 're-engagement nudge failed');
        }
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    return { expired, due: due.length, nudged };
  }

  private async nudge(due: Due, now: Date): Promise<boolean> {
    const ctx: RequestContext = { organizationId: due.organization_id, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const closesAt = windowEnd(new Date(due.last_customer_message_at), due.window_closes_at ? new Date(due.window_closes_at) : null);
    const claimed = await this.db.inTenant(ctx, async (tx) => {
      const [settings] = await tx.query<SettingsRow>(SETTINGS_OF);
      const [nudge] = await tx.query<NudgeRow>(CLAIM_WINDOW, [due.conversation_id, due.contact_id, due.last_customer_message_at, closesAt, now]);
      return nudge && settings ? { nudge, settings } : null;
    });
    if (!claimed) return false;
    const { nudge, settings } = claimed;
    const draft = await this.drafter.draft(ctx, settings, due.conversation_id, due.contact_id).catch((error: Error) => ({
      ok: false as const,
      reason: error.message.slice(0, 300),
      provider: null,
      fallbackReason: null,
    }));
    // Approval mode: a `draft` waiting for an agent. Off: it stays `drafting` until sent at once.
    const status: NudgeStatus = !draft.ok ? 'failed' : settings.approval_mode ? 'draft' : 'drafting';
    const params = [nudge.id, status, draft.ok ? draft.text : null, draft.provider, draft.fallbackReason, draft.ok ? null : draft.reason];
    const [drafted] = await this.db.inTenant(ctx, (tx) => tx.query<NudgeRow>(DRAFTED, params));
    if (!drafted || status !== 'drafting' || !draft.ok) return Boolean(drafted);
    return (await this.sender.send(ctx, drafted.id, draft.text, ['drafting'], null)).sent;
  }
}

export const reengagementPassJob = defineJob({ name: 'reengagement.nudge-pass', handler: ReengagementScheduler, retry: { maxAttempts: 1 } });
export const reengagementSchedules = [defineSchedule({ job: reengagementPassJob, everyMs: 60_000 })];
