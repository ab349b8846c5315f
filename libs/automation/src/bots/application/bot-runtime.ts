import { Logger } from '@nestjs/common';
import { type Registry, registryFor } from '@engage/data-api';
import { AGENT_REPLY_ORIGINS } from '@engage/messaging';
import type { Database } from '@engage/platform';
import { type Clock, type DomainEvent, NotFound, type RequestContext } from '@engage/shared-kernel';
import { facts, type ReadSettings, readSubject } from '../../application/dry-run.service';
import { isFinishKeyword, keywordMatches } from '../domain/answers';
import type { Settings, Trigger } from '../domain/flow';
import type { Definition } from '../domain/nodes';
import type { BotSessionRow } from '../domain/tables';
import * as SQL from '../infrastructure/bots.sql';
import { type BotSteps, SessionEnded, type SessionState, type StepInput, type StepOutcome } from './bot-steps';

interface MessageView {
  id: string;
  conversation_id: string;
  contact_id: string | null;
  channel_account_id: string;
  direction: string;
  content: string | null;
  origin?: string;
  created_at: string;
}
interface CandidateFlow {
  id: string;
  trigger: Trigger;
  version: number;
  settings: Settings;
}

const minutes = (now: Date, count: number) => new Date(now.getTime() + count * 60_000);
// When a gathered answer's timer finds the bot still busy with the question, it looks again this soon.
const BUSY_RETRY_MS = 250;
// A session whose steps have been under way this long without moving is taken as left by a process
// that died mid-step, and stopped (`stalled`) by the periodic pass. Steps take seconds; a webhook
// node at most a minute, so only a flow with more than ten webhook nodes in a row could reach it.
export const STALLED_STEP_MINUTES = 10;

// Bot sessions (docs/automation.md, "Bot sessions"): started by a flow's trigger on a customer's
// message (or a rule's start_bot), moved on by the customer's answers (a burst within a second is
// one answer), stopped by an agent's reply, a finish keyword or an agent's stop, expired by the
// periodic pass. Each session runs the version it started on.
export class BotRuntime {
  private readonly logger = new Logger('BotRuntime');
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly db: Database,
    private readonly registry: () => Registry,
    private readonly settings: ReadSettings,
    private readonly clock: Clock,
    private readonly steps: BotSteps,
  ) {}

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  async handle(event: DomainEvent): Promise<void> {
    const message = (event.payload as { message?: MessageView }).message;
    if (!message || typeof message !== 'object') return;
    const ctx = systemContext(event.organizationId, event.id);
    if (event.type === 'message.received' && message.direction === 'INBOUND') await this.onCustomerMessage(ctx, message);
    if (event.type === 'message.sent' && (AGENT_REPLY_ORIGINS as readonly string[]).includes(String(message.origin))) {
      // An agent's reply stops the bot of the conversation (sessions started before the reply).
      await this.db.inTenant(ctx, (tx) => tx.query(SQL.STOP_OPEN_SESSIONS, [message.conversation_id, 'agent_reply', this.clock.now(), message.created_at]));
    }
  }

  private async onCustomerMessage(ctx: RequestContext, message: MessageView): Promise<void> {
    const text = message.content ?? '';
    const [open] = await this.db.inTenant(ctx, (tx) => tx.query<BotSessionRow & { settings: Settings }>(SQL.OPEN_SESSION, [message.conversation_id]));
    if (open) {
      if (isFinishKeyword(open.settings.finish_keywords, text)) {
        await this.db.inTenant(ctx, (tx) => tx.query(SQL.STOP_SESSION, [open.id, 'finish_keyword', this.clock.now()]));
        return;
      }
      const [added] = await this.db.inTenant(ctx, (tx) =>
        tx.query<{ answer_due_at: Date }>(SQL.ADD_TO_ANSWER, [open.id, message.id, text, message.created_at]),
      );
      if (added) this.answerAt(ctx.organizationId, open.id, new Date(added.answer_due_at));
      return;
    }
    const flow = await this.triggered(ctx, message, text);
    if (flow) await this.start(ctx, flow, message.conversation_id, message.contact_id);
  }

  // The first active, published flow on the message's channel account whose trigger the message
  // meets; none when the conversation has an assignee or its last session was handed off or
  // stopped within the flow's expire_minutes (the people have it).
  private async triggered(ctx: RequestContext, message: MessageView, text: string): Promise<CandidateFlow | undefined> {
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const flows = await tx.query<CandidateFlow>(SQL.FLOWS_ON_ACCOUNT, [message.channel_account_id]);
        if (flows.length === 0) return undefined;
        const records = await readSubject(tx, registryFor(this.registry(), 'OWNER'), 'conversation', message.conversation_id);
        if (!records?.conversation || records.conversation.assignee_id) return undefined;
        const [last] = await tx.query<{ status: string; updated_at: Date }>(SQL.LAST_SESSION, [message.conversation_id]);
        const first = (await tx.query(SQL.EARLIER_MESSAGE, [message.conversation_id, message.id, message.created_at])).length === 0;
        const now = this.clock.now();
        return flows.find((flow) => {
          if (last && (last.status === 'handed_off' || last.status === 'stopped') && minutes(new Date(last.updated_at), flow.settings.expire_minutes) > now)
            return false;
          const trigger = flow.trigger;
          if (trigger.type === 'new_conversation') return first;
          if (trigger.type === 'keyword') return keywordMatches(trigger.keywords ?? [], trigger.match ?? 'equals', text);
          return true;
        });
      },
      { readOnly: true },
    );
  }

  // A rule's start_bot: the flow's published version in the conversation, whatever its trigger.
  async startByRule(ctx: RequestContext, flowId: string, conversationId: string, contactId: string | null): Promise<{ session_id: string; status: string }> {
    const [flow] = await this.db.inTenant(ctx, (tx) => tx.query<CandidateFlow>(SQL.PUBLISHED_FLOW, [flowId]));
    if (!flow) throw NotFound('bot_flow', flowId);
    const session = await this.start(ctx, flow, conversationId, contactId);
    if (!session) throw new Error('the conversation already has an open bot session');
    return session;
  }

  private async start(ctx: RequestContext, flow: CandidateFlow, conversationId: string, contactId: string | null) {
    const version = await this.version(ctx, flow.id, flow.version);
    const now = this.clock.now();
    const [row] = await this.db.inTenant(ctx, (tx) =>
      tx.query<BotSessionRow>(SQL.START_SESSION, [
        conversationId,
        contactId,
        flow.id,
        flow.version,
        version.definition.start,
        minutes(now, version.settings.expire_minutes),
        now,
      ]),
    );
    if (!row) return undefined; // the conversation has an open session
    const status = await this.advance(ctx, row, version, { kind: 'start' });
    return { session_id: row.id, status };
  }

  // The gathered answer of a waiting session, once it is due (a second after its first message).
  async takeAnswer(organizationId: string, sessionId: string, now: Date = this.clock.now()): Promise<void> {
    const ctx = systemContext(organizationId, sessionId);
    const [row] = await this.db.inTenant(ctx, async (tx) => {
      const [session] = await tx.query<{ bot_flow_id: string; version: number }>(SQL.SESSION_BY_ID, [sessionId]);
      if (!session) return [];
      const [settings] = await tx.query<{ settings: Settings }>(SQL.VERSION_OF, [session.bot_flow_id, session.version]);
      return tx.query<BotSessionRow & { answer: { text: string }[] }>(SQL.TAKE_ANSWER, [sessionId, now, minutes(now, settings.settings.expire_minutes)]);
    });
    if (!row) {
      const [state] = await this.db.inTenant(ctx, (tx) => tx.query<{ status: string; answer_due_at: Date | null }>(SQL.ANSWER_DUE_AT, [sessionId]));
      // Still putting the question, or not due yet: look again then.
      if (state?.answer_due_at && (state.status === 'active' || state.status === 'waiting')) {
        const due = new Date(state.answer_due_at);
        this.answerAt(organizationId, sessionId, due > now ? due : new Date(now.getTime() + BUSY_RETRY_MS));
      }
      return;
    }
    const text = row.answer.map((part) => part.text).join('\n');
    await this.advance(ctx, row, await this.version(ctx, row.bot_flow_id, row.version), { kind: 'answer', text });
  }

  async takeTimeout(organizationId: string, sessionId: string, now: Date = this.clock.now()): Promise<void> {
    const ctx = systemContext(organizationId, sessionId);
    const [row] = await this.db.inTenant(ctx, async (tx) => {
      const [session] = await tx.query<{ bot_flow_id: string; version: number }>(SQL.SESSION_BY_ID, [sessionId]);
      if (!session) return [];
      const [settings] = await tx.query<{ settings: Settings }>(SQL.VERSION_OF, [session.bot_flow_id, session.version]);
      return tx.query<BotSessionRow>(SQL.TAKE_TIMEOUT, [sessionId, now, minutes(now, settings.settings.expire_minutes)]);
    });
    if (row) await this.advance(ctx, row, await this.version(ctx, row.bot_flow_id, row.version), { kind: 'timeout' });
  }

  // The periodic pass: sessions stalled in a step for STALLED_STEP_MINUTES are stopped; open
  // sessions past expire_minutes expire; due answers and ask timeouts are taken (an answer's own
  // timer normally takes it first). Answers the sessions expired.
  async sweep(now: Date = this.clock.now()): Promise<number> {
    const stalled = await this.db.asSystem((tx) => tx.execute(SQL.STOP_STALLED_SESSIONS, [now, minutes(now, -STALLED_STEP_MINUTES), 10_000]));
    if (stalled > 0) this.logger.warn(`${stalled} bot session(s) stalled in a step for ${STALLED_STEP_MINUTES} minutes stopped`);
    const expired = await this.db.asSystem((tx) => tx.execute(SQL.EXPIRE_SESSIONS, [now, 10_000]));
    const due = await this.db.asSystem((tx) => tx.query<{ id: string; organization_id: string; answer: boolean }>(SQL.DUE_SESSIONS, [now, 1_000]));
    for (const session of due) {
      await (session.answer ? this.takeAnswer(session.organization_id, session.id, now) : this.takeTimeout(session.organization_id, session.id, now));
    }
    return expired;
  }

  // POST /functions/v1/automation/bot-sessions/<id>/stop
  // The session stopped now, or as it is when it had ended already; undefined when there is none.
  async stop(ctx: RequestContext, id: string): Promise<{ stopped: boolean; session: BotSessionRow } | undefined> {
    return this.db.inTenant(ctx, async (tx) => {
      const [stopped] = await tx.query<BotSessionRow>(SQL.STOP_SESSION, [id, 'agent_stop', this.clock.now()]);
      if (stopped) return { stopped: true, session: stopped };
      const [session] = await tx.query<BotSessionRow>(SQL.SESSION_BY_ID, [id]);
      return session ? { stopped: false, session } : undefined;
    });
  }

  private async version(ctx: RequestContext, flowId: string, version: number): Promise<{ definition: Definition; settings: Settings }> {
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<{ definition: Definition; settings: Settings }>(SQL.VERSION_OF, [flowId, version]));
    return row;
  }

  // The session's steps from where it is, and where they left it; the status it ended in.
  private async advance(ctx: RequestContext, row: BotSessionRow, version: { definition: Definition; settings: Settings }, input: StepInput): Promise<string> {
    const state: SessionState = {
      id: row.id,
      organization_id: row.organization_id,
      conversation_id: row.conversation_id,
      contact_id: row.contact_id,
      bot_flow_id: row.bot_flow_id,
      version: row.version,
      current_node: row.current_node,
      variables: (row.variables as Record<string, unknown>) ?? {},
      retries: row.retries,
    };
    const [zone, hours] = await this.settings(ctx.organizationId, ['time_zone', 'business_hours']);
    const read = async () => {
      const records = await this.db.inTenant(ctx, (tx) => readSubject(tx, registryFor(this.registry(), 'OWNER'), 'conversation', row.conversation_id), {
        readOnly: true,
      });
      return { ...(records ?? {}), time: facts(this.clock.now(), zone, hours) };
    };
    let outcome: StepOutcome;
    try {
      outcome = await this.steps.run(ctx, state, version.definition, version.settings, input, read);
    } catch (error) {
      if (error instanceof SessionEnded) return 'stopped';
      throw error;
    }
    const now = this.clock.now();
    const values =
      outcome.kind === 'wait'
        ? ['waiting', null, outcome.node.id, outcome.variables, outcome.retries, null]
        : [outcome.status, outcome.reason, outcome.node, outcome.variables, 0, outcome.handedTo ?? null];
    const timeout = outcome.kind === 'wait' && outcome.node.timeout_minutes !== undefined ? minutes(now, outcome.node.timeout_minutes) : null;
    const expires = outcome.kind === 'wait' ? minutes(now, version.settings.expire_minutes) : null;
    const [saved] = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ id: string; answer_due_at: Date | null }>(SQL.SAVE_STEP, [
        row.id,
        values[0],
        values[1],
        values[2],
        JSON.stringify(values[3]),
        values[4],
        values[5],
        timeout,
        expires,
        now,
      ]),
    );
    // Messages that came while the question was being put are the answer, due as they say.
    if (saved?.answer_due_at) this.answerAt(ctx.organizationId, row.id, new Date(saved.answer_due_at));
    return saved ? String(values[0]) : 'stopped';
  }

  // The gathered answer taken when due, in this process (the periodic pass takes what a stopped
  // process left).
  private answerAt(organizationId: string, sessionId: string, due: Date): void {
    const delay = Math.max(0, due.getTime() - this.clock.now().getTime()) + 10;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.takeAnswer(organizationId, sessionId).catch((error: unknown) => this.logger.error(`bot session ${sessionId}: ${(error as Error).message}`));
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }
}

const systemContext = (organizationId: string, requestId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId });
