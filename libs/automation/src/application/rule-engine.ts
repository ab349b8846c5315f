import { type Registry, registryFor } from '@engage/data-api';
import { type Database, sqlStateOf } from '@engage/platform';
import type { Clock, DomainEvent, RequestContext } from '@engage/shared-kernel';
import type { Action } from '../domain/actions';
import { type RuleEvent, type SubjectType, subjectOf } from '../domain/catalogue';
import type { ConditionGroup } from '../domain/conditions';
import { evaluate, type Snapshot } from '../domain/evaluator';
import { admit, causeOf, runStatus } from '../domain/runs';
import { ACTIVE_RULES_OF_EVENT, CLAIM_RUN, FINISH_RUN } from '../infrastructure/automation.sql';
import { facts, type ReadSettings, readSubject } from './dry-run.service';
import type { RuleActions } from './rule-actions';

// The events the engine runs rules on (the timers, call.analyzed and broadcast.response are not
// built yet: their rules are stored and never run).
export const ENGINE_EVENTS = [
  'message.received',
  'conversation.created',
  'conversation.status.changed',
  'conversation.assigned',
  'contact.created',
  'contact.updated',
  'deal.created',
  'deal.stage.changed',
] as const satisfies readonly RuleEvent[];

const isEngineEvent = (type: string): type is (typeof ENGINE_EVENTS)[number] => (ENGINE_EVENTS as readonly string[]).includes(type);

interface ActiveRule {
  id: string;
  name: string;
  event: string;
  conditions: ConditionGroup;
  actions: Action[];
  action_secrets: (string | null)[];
}

// Runs the organization's active rules of an event in order (position, then age): each rule's
// conditions on the subject as it is now (read as the dry run reads it), and for a match its
// actions, logged in automation_runs. The run is claimed by inserting it before any action runs:
// (rule, event) is unique, so a redelivered event, or one handled by two workers at once, runs
// each rule once. The loop guard (domain/runs.ts) leaves out events a rule's own action caused
// and skips runs at depth 3.
export class RuleEngine {
  constructor(
    private readonly db: Database,
    private readonly registry: () => Registry,
    private readonly settings: ReadSettings,
    private readonly clock: Clock,
    private readonly actions: RuleActions,
  ) {}

  async handle(event: DomainEvent): Promise<void> {
    if (!isEngineEvent(event.type)) return;
    const subjectType = subjectOf(event.type);
    const subjectId = subjectIdOf(event, subjectType);
    if (!subjectId) return;
    const ctx: RequestContext = { organizationId: event.organizationId, userId: null, role: 'SYSTEM', requestId: event.id };
    const rules = await this.db.inTenant(ctx, (tx) => tx.query<ActiveRule>(ACTIVE_RULES_OF_EVENT, [event.type]), { readOnly: true });
    if (rules.length === 0) return;
    const [zone, hours] = await this.settings(event.organizationId, ['time_zone', 'business_hours']);
    let snapshot = await this.read(ctx, subjectType, subjectId, zone, hours);
    for (const rule of rules) {
      if (!snapshot) return; // the subject is gone
      const acted = await this.runRule(ctx, rule, event, { type: subjectType, id: subjectId }, snapshot);
      // A rule's actions may have changed the records the next rule reads.
      if (acted) snapshot = await this.read(ctx, subjectType, subjectId, zone, hours);
    }
  }

  // Whether the rule's actions ran.
  private async runRule(ctx: RequestContext, rule: ActiveRule, event: DomainEvent, subject: { type: SubjectType; id: string }, snapshot: Snapshot) {
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
    const outcomes = await this.actions.runAll(rule.actions, {
      ctx: { ...ctx, requestId: runId },
      rule,
      runId,
      event,
      subject,
      snapshot,
      cause: causeOf(rule.id, runId, admission.depth),
    });
    const finished = [runId, runStatus(outcomes), JSON.stringify(outcomes), this.clock.now()];
    await this.db.inTenant(ctx, (tx) => tx.execute(FINISH_RUN, finished));
    return true;
  }

  private async read(ctx: RequestContext, type: SubjectType, id: string, zone: string | null, hours: string | null): Promise<Snapshot | undefined> {
    const registry = registryFor(this.registry(), 'OWNER');
    const records = await this.db.inTenant(ctx, (tx) => readSubject(tx, registry, type, id), { readOnly: true });
    return records ? { ...records, time: facts(this.clock.now(), zone, hours) } : undefined;
  }
}

// The subject's id: the record the event's payload carries, else the event's aggregate.
function subjectIdOf(event: DomainEvent, subject: SubjectType): string | undefined {
  const record = (event.payload as Record<string, unknown>)[subject];
  const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
  const chosen = typeof id === 'string' ? id : event.aggregateId;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(chosen) ? chosen.toLowerCase() : undefined;
}
