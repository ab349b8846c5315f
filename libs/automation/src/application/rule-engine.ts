import { type Registry, registryFor } from '@engage/data-api';
import { type Database, sqlStateOf } from '@engage/platform';
import { type Clock, type DomainEvent, groupBy, type RequestContext } from '@engage/shared-kernel';
import type { Action } from '../domain/actions';
import { type RuleEvent, type SubjectType, subjectOf } from '../domain/catalogue';
import type { ConditionGroup } from '../domain/conditions';
import { evaluate, type Snapshot } from '../domain/evaluator';
import { type ActionOutcome, admit, causeOf, settledStatus } from '../domain/runs';
import { isTimerEvent, type TimerKind } from '../domain/timers';
import {
  ACTIVE_RULE,
  ACTIVE_RULES_OF_EVENTS,
  CLAIM_RUN,
  EPISODE_OPEN,
  FINISH_RUN,
  PAUSE_RUN,
  RESUME_RUN,
  RUN_FOR_UPDATE,
} from '../infrastructure/automation.sql';
import { facts, type ReadSettings, readSubject } from './dry-run.service';
import type { RuleActions, RunAllResult } from './rule-actions';
import { enqueueDelivery } from './rule-webhook.job';

// The events of the bus the engine runs rules on. The timers are not on the bus: the timer pass
// fires them (fireTimer).
export const ENGINE_EVENTS = [
  'message.received',
  'broadcast.response',
  'conversation.created',
  'conversation.status.changed',
  'conversation.assigned',
  'contact.created',
  'contact.updated',
  'deal.created',
  'deal.stage.changed',
  'call.analyzed',
] as const satisfies readonly RuleEvent[];

const isEngineEvent = (type: string): type is (typeof ENGINE_EVENTS)[number] => (ENGINE_EVENTS as readonly string[]).includes(type);

interface ActiveRule {
  id: string;
  name: string;
  event: string;
  conditions: ConditionGroup;
  actions: Action[];
  action_secrets: (string | null)[];
  updated_at?: Date;
}

// A timer rule due on an open episode (the timer pass's find, claimed by it).
export interface DueTimer {
  organization_id: string;
  conversation_id: string;
  kind: TimerKind;
  episode_id: string;
  rule_id: string;
  due_at: Date;
}

interface ResumedRun {
  id: string;
  rule_id: string;
  event: string;
  event_id: string;
  subject_type: SubjectType;
  subject_id: string;
  depth: number;
  actions: ActionOutcome[];
  started_at: Date;
}

type Subject = { type: SubjectType; id: string };

// Runs the organization's active rules of an event in order (position, then age): each rule's
// conditions on the subject as it is now (read as the dry run reads it), and for a match its
// actions, logged in automation_runs. The run is claimed by inserting it before any action runs:
// (rule, event) is unique, so a redelivered event, or one handled by two workers at once, runs
// each rule once. The loop guard (domain/runs.ts) leaves out events a rule's own action caused
// and skips runs at depth 3. A wait action pauses the run (`waiting`); resume() goes on with it.
export class RuleEngine {
  constructor(
    private readonly db: Database,
    private readonly registry: () => Registry,
    private readonly settings: ReadSettings,
    private readonly clock: Clock,
    private readonly actions: RuleActions,
  ) {}

  async handle(event: DomainEvent): Promise<void> {
    await this.handleAll([event]);
  }

  // A batch of the bus's events, in order: each organization's active rules of the batch's event
  // types read once (the rules as they are when the batch starts), and its settings at most once.
  async handleAll(events: readonly DomainEvent[]): Promise<void> {
    const relevant = events.filter((event) => isEngineEvent(event.type));
    for (const [organizationId, list] of groupBy(relevant, (event) => event.organizationId)) {
      const types = [...new Set(list.map((event) => event.type))];
      const read = systemCtx(organizationId, list[0].id);
      const rules = await this.db.inTenant(read, (tx) => tx.query<ActiveRule>(ACTIVE_RULES_OF_EVENTS, [types], { prepare: true }), { readOnly: true });
      if (rules.length === 0) continue;
      let settings: Promise<(string | null)[]> | undefined;
      const settingsOnce = () => (settings ??= this.settings(organizationId, ['time_zone', 'business_hours']));
      for (const event of list) {
        const mine = rules.filter((rule) => rule.event === event.type);
        const subjectType = subjectOf(event.type as (typeof ENGINE_EVENTS)[number]);
        const subjectId = subjectIdOf(event, subjectType);
        if (mine.length === 0 || !subjectId) continue;
        await this.runRules(systemCtx(organizationId, event.id), mine, event, { type: subjectType, id: subjectId }, settingsOnce);
      }
    }
  }

  // A timer rule due on an episode the caller has claimed for it: a depth-0 event of the timer's
  // kind whose id is the episode's, about the conversation as it is now.
  async fireTimer(due: DueTimer): Promise<void> {
    const ctx = systemCtx(due.organization_id, due.episode_id);
    const event: DomainEvent = {
      id: due.episode_id,
      type: due.kind,
      source: 'automation',
      organizationId: due.organization_id,
      aggregateId: due.conversation_id,
      occurredAt: new Date(due.due_at).toISOString(),
      schemaVersion: 1,
      payload: { conversation: { id: due.conversation_id } },
    };
    const rules = await this.db.inTenant(ctx, (tx) => tx.query<ActiveRule>(ACTIVE_RULE, [due.rule_id]), { readOnly: true });
    await this.runRules(
      ctx,
      rules.filter((rule) => rule.event === due.kind),
      event,
      { type: 'conversation', id: due.conversation_id },
      () => this.settings(due.organization_id, ['time_zone', 'business_hours']),
    );
  }

  // A waiting run whose time has come, if this process claims it: the actions after its wait, when
  // the rule is still active and unchanged since the run started, the episode of a timer rule is
  // still open, and the conditions still hold on the subject as it is now; else the rest is skipped
  // with the reason.
  async resume(organizationId: string, runId: string): Promise<void> {
    const ctx = systemCtx(organizationId, runId);
    const [run] = await this.db.inTenant(ctx, (tx) => tx.query<ResumedRun>(RESUME_RUN, [runId, this.clock.now()]));
    if (!run) return; // another process took it
    const [rule] = await this.db.inTenant(ctx, (tx) => tx.query<ActiveRule>(ACTIVE_RULE, [run.rule_id]), { readOnly: true });
    const done = run.actions;
    const subject: Subject = { type: run.subject_type, id: run.subject_id };
    let stop: string | undefined;
    let snapshot: Snapshot | undefined;
    if (!rule) stop = 'the rule was deactivated during the wait';
    else if (rule.updated_at && new Date(rule.updated_at) > new Date(run.started_at)) stop = 'the rule was changed during the wait';
    else if (isTimerEvent(run.event) && !(await this.episodeOpen(ctx, run.event_id))) stop = 'a reply ended the episode during the wait';
    else {
      const [zone, hours] = await this.settings(organizationId, ['time_zone', 'business_hours']);
      snapshot = await this.read(ctx, subject.type, subject.id, zone, hours);
      if (!snapshot) stop = `the ${subject.type} is gone`;
      else if (!evaluate(rule.conditions, snapshot).matched) stop = 'the conditions no longer hold';
    }
    if (stop || !rule || !snapshot) {
      const skipped = (rule?.actions ?? []).slice(done.length).map((action) => ({ type: action.type, status: 'skipped' as const, error: `not run: ${stop}` }));
      await this.settle(ctx, run.id, done.length, { outcomes: skipped, deliveries: [] });
      return;
    }
    const event: DomainEvent = {
      id: run.event_id,
      type: run.event,
      source: 'automation',
      organizationId,
      aggregateId: run.subject_id,
      occurredAt: new Date(run.started_at).toISOString(),
      schemaVersion: 1,
      payload: {},
    };
    await this.continueRun(ctx, rule, run.id, event, subject, snapshot, run.depth, done);
  }

  private async runRules(
    ctx: RequestContext,
    rules: ActiveRule[],
    event: DomainEvent,
    subject: Subject,
    settings: () => Promise<(string | null)[]>,
  ): Promise<void> {
    if (rules.length === 0) return;
    const [zone, hours] = await settings();
    let snapshot = await this.read(ctx, subject.type, subject.id, zone, hours);
    for (const rule of rules) {
      if (!snapshot) return; // the subject is gone
      const acted = await this.runRule(ctx, rule, event, subject, snapshot);
      // A rule's actions may have changed the records the next rule reads.
      if (acted) snapshot = await this.read(ctx, subject.type, subject.id, zone, hours);
    }
  }

  // Whether the rule's actions ran.
  private async runRule(ctx: RequestContext, rule: ActiveRule, event: DomainEvent, subject: Subject, snapshot: Snapshot) {
    const admission = admit(rule.id, event.cause);
    if (admission.kind === 'ignore') return false;
    if (!evaluate(rule.conditions, snapshot).matched) return false;
    const guarded = admission.kind === 'loop_guard';
    const claim = [rule.id, event.type, event.id, subject.type, subject.id, guarded ? 'skipped' : 'running', guarded ? 'loop_guard' : null];
    let runId: string | undefined;
    try {
      [{ id: runId } = { id: undefined }] = await this.db.inTenant(ctx, (tx) =>
        tx.query<{ id: string }>(CLAIM_RUN, [...claim, admission.depth, this.clock.now()]),
      );
    } catch (error) {
      // The rule was deleted meanwhile; or the organization may not write (its subscription ended):
      // no run, rather than an event retried for ever in front of every other organization's.
      if (sqlStateOf(error) === '23503' || sqlStateOf(error) === '25006') return false;
      throw error;
    }
    if (!runId || guarded) return false; // another process has this run, or the loop guard stopped it
    await this.continueRun(ctx, rule, runId, event, subject, snapshot, admission.depth, []);
    return true;
  }

  // The run's actions after those `done`, up to the end (the run finished) or a wait (paused).
  private async continueRun(
    ctx: RequestContext,
    rule: ActiveRule,
    runId: string,
    event: DomainEvent,
    subject: Subject,
    snapshot: Snapshot,
    depth: number,
    done: ActionOutcome[],
  ) {
    const ran = await this.actions.runAll(
      rule.actions,
      { ctx: { ...ctx, requestId: runId }, rule, runId, event, subject, snapshot, cause: causeOf(rule.id, runId, depth) },
      done.length,
    );
    await this.settle(ctx, runId, done.length, ran);
  }

  // Stores the outcomes of the actions from `from` on after the run's first `from` as they are now
  // (a delivery job may have ended a webhook of them meanwhile), with the run's status: waiting at a
  // wait, else its outcome or `delivering`; and enqueues the deliveries of its new webhooks in the
  // same transaction.
  private async settle(ctx: RequestContext, runId: string, from: number, ran: RunAllResult) {
    await this.db.inTenant(ctx, async (tx) => {
      const [stored] = await tx.query<{ actions: ActionOutcome[] }>(RUN_FOR_UPDATE, [runId]);
      if (!stored) return; // purged meanwhile
      const all = [...stored.actions.slice(0, from), ...ran.outcomes];
      if (ran.resumeAt) await tx.execute(PAUSE_RUN, [runId, JSON.stringify(all), ran.resumeAt]);
      else await tx.execute(FINISH_RUN, [runId, settledStatus(all), JSON.stringify(all), this.clock.now()]);
      for (const delivery of ran.deliveries) await enqueueDelivery(tx, runId, delivery, this.clock.now());
    });
  }

  private async episodeOpen(ctx: RequestContext, episodeId: string): Promise<boolean> {
    const rows = await this.db.inTenant(ctx, (tx) => tx.query(EPISODE_OPEN, [episodeId]), { readOnly: true });
    return rows.length > 0;
  }

  private async read(ctx: RequestContext, type: SubjectType, id: string, zone: string | null, hours: string | null): Promise<Snapshot | undefined> {
    const registry = registryFor(this.registry(), 'OWNER');
    const records = await this.db.inTenant(ctx, (tx) => readSubject(tx, registry, type, id), { readOnly: true });
    return records ? { ...records, time: facts(this.clock.now(), zone, hours) } : undefined;
  }
}

const systemCtx = (organizationId: string, requestId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId });

// The subject's id: the record the event's payload carries, else the event's aggregate.
function subjectIdOf(event: DomainEvent, subject: SubjectType): string | undefined {
  const record = (event.payload as Record<string, unknown>)[subject];
  const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
  const chosen = typeof id === 'string' ? id : event.aggregateId;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(chosen) ? chosen.toLowerCase() : undefined;
}
