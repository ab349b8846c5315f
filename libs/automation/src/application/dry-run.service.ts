import { executeRead, type Registry, registryFor } from '@engage/data-api';
import { parseBusinessHours } from '@engage/identity';
import type { Database, Tx } from '@engage/platform';
import { type Clock, DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Action } from '../domain/actions';
import { type RuleEvent, type SubjectType, subjectOf } from '../domain/catalogue';
import type { ConditionGroup } from '../domain/conditions';
import { describeActions } from '../domain/dry-run';
import { evaluate, type Snapshot } from '../domain/evaluator';
import { timeFacts, type WeeklyHours } from '../domain/time-facts';
import { assertRuleId, type RulesService } from './rules.service';

// Reads plain organization settings (identity's OrganizationSettings.plainMany).
export type ReadSettings = (organizationId: string, keys: string[]) => Promise<(string | null)[]>;

type Row = Record<string, unknown>;
type Records = Omit<Snapshot, 'time'>;

// The tables each subject is read from, as /rest/v1 serves them (the owning contexts' published
// read surface: their columns, the caller's row-level security and role).
const SUBJECT_TABLES: Record<SubjectType, string> = {
  message: 'messages',
  conversation: 'conversations',
  contact: 'contacts',
  deal: 'deals',
  call: 'call_records',
};

// POST /functions/v1/automation/rules/<id>/test: the rule's conditions evaluated on the subject as
// it is now, each condition's outcome, and what each action would do. One read-only transaction:
// nothing is changed, nothing is sent.
export class DryRunService {
  constructor(
    private readonly db: Database,
    private readonly rules: RulesService,
    private readonly registry: () => Registry,
    private readonly settings: ReadSettings,
    private readonly clock: Clock,
  ) {}

  async test(ctx: RequestContext, ruleId: string, subjectId: unknown) {
    assertRuleId(ruleId);
    if (!isUuid(subjectId)) throw new DomainError('validation', 'automation.invalid_subject_id', 'subject_id must be a UUID', { field: 'subject_id' });
    const [zone, hours] = await this.settings(ctx.organizationId, ['time_zone', 'business_hours']);
    const registry = registryFor(this.registry(), ctx.role);
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const rule = await this.rules.ruleIn(tx, ruleId);
        if (!rule) throw NotFound('automation_rule', ruleId);
        const subject = subjectOf(rule.event as RuleEvent);
        const records = await readSubject(tx, registry, subject, subjectId.toLowerCase());
        if (!records) throw NotFound(subject, subjectId);
        const snapshot: Snapshot = { ...records, time: facts(this.clock.now(), zone, hours) };
        const result = evaluate(rule.conditions as unknown as ConditionGroup, snapshot);
        return { matched: result.matched, conditions: result.conditions, actions: describeActions(rule.actions as unknown as Action[], snapshot) };
      },
      { readOnly: true },
    );
  }
}

// The subject's records, or undefined when the caller cannot see the subject.
export async function readSubject(tx: Tx, registry: Registry, subject: SubjectType, id: string): Promise<Records | undefined> {
  const row = await readRow(tx, registry, SUBJECT_TABLES[subject], id);
  if (!row) return undefined;
  const contactOf = (holder: Row) => (typeof holder.contact_id === 'string' ? readRow(tx, registry, 'contacts', holder.contact_id) : undefined);
  switch (subject) {
    case 'message': {
      const conversation = typeof row.conversation_id === 'string' ? await readRow(tx, registry, 'conversations', row.conversation_id) : undefined;
      return { message: row, conversation, contact: await contactOf(row) };
    }
    case 'conversation':
      return { conversation: row, contact: await contactOf(row) };
    case 'contact':
      return { contact: row };
    case 'deal':
      return { deal: row, contact: await contactOf(row) };
    case 'call':
      return { contact: await contactOf(row) };
  }
}

async function readRow(tx: Tx, registry: Registry, table: string, id: string): Promise<Row | undefined> {
  if (!registry.tables.has(table)) return undefined;
  const response = await executeRead(tx, registry, { method: 'GET', table, query: '', headers: {}, ids: [id] });
  return (JSON.parse(response.body) as Row[])[0];
}

// The moment's facts in the organization's time zone and business hours (identity checks both
// when they are set; a value that does not read counts as unset, as in the reports).
export function facts(now: Date, zone: string | null, hours: string | null) {
  let schedule: WeeklyHours | null = null;
  try {
    schedule = hours === null ? null : parseBusinessHours(hours);
  } catch {
    schedule = null;
  }
  try {
    return timeFacts(now, zone ?? 'UTC', schedule);
  } catch {
    return timeFacts(now, 'UTC', schedule);
  }
}
