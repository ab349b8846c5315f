import { assertAllowed } from '@engage/identity';
import type { SecretBox, Tx } from '@engage/platform';
import { DomainError, isUuid, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import { type Action, MASKED_SECRET } from '../domain/actions';
import { ruleInvalid } from '../domain/rule-error';
import { parseRule, type RuleFields } from '../domain/rule';
import { AUTOMATION_RULES, type RuleRow } from '../domain/tables';
import { DELETE_RULE, INSERT_RULE, RULE_BY_ID, RULE_FOR_UPDATE, UPDATE_RULE } from '../infrastructure/automation.sql';
import { AUTOMATION_RULES_MANAGE } from '../automation.permissions';

export function assertRuleId(id: string): void {
  if (!isUuid(id)) throw new DomainError('validation', 'automation_rule.invalid_id', `rule id must be a UUID, got ${JSON.stringify(String(id).slice(0, 64))}`);
}

const fieldsOf = (row: RuleRow): RuleFields => row as unknown as RuleFields;
export const toRuleView = (row: RuleRow) => toView(AUTOMATION_RULES, row);

// Rules: validated whole on every write (docs/automation.md), by OWNER and ADMIN. A webhook
// action's secret is sealed at rest and served masked; a write that sends the mask back keeps it.
export class RulesService {
  constructor(private readonly box: SecretBox) {}

  async createIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>) {
    assertAllowed(ctx.role, AUTOMATION_RULES_MANAGE);
    const fields = parseRule(input);
    const { actions, secrets } = this.sealSecrets(fields.actions, undefined);
    const [row] = await tx.query<RuleRow>(INSERT_RULE, [...this.values({ ...fields, actions }, secrets), ctx.userId]);
    return toRuleView(row);
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>) {
    assertAllowed(ctx.role, AUTOMATION_RULES_MANAGE);
    assertRuleId(id);
    const [current] = await tx.query<RuleRow>(RULE_FOR_UPDATE, [id]);
    if (!current) throw NotFound('automation_rule', id);
    const fields = parseRule(input, fieldsOf(current));
    const { actions, secrets } = this.sealSecrets(fields.actions, current);
    const [row] = await tx.query<RuleRow>(UPDATE_RULE, [id, ...this.values({ ...fields, actions }, secrets)]);
    return toRuleView(row);
  }

  async removeIn(tx: Tx, ctx: RequestContext, id: string): Promise<void> {
    assertAllowed(ctx.role, AUTOMATION_RULES_MANAGE);
    assertRuleId(id);
    if ((await tx.execute(DELETE_RULE, [id])) === 0) throw NotFound('automation_rule', id);
  }

  // A rule as stored, for the dry run and the engine; undefined when this organization has none.
  async ruleIn(tx: Tx, id: string): Promise<RuleRow | undefined> {
    assertRuleId(id);
    const [row] = await tx.query<RuleRow>(RULE_BY_ID, [id]);
    return row;
  }

  // The jsonb parameters serialised (the driver would send a JS array as a PostgreSQL array).
  private values(fields: RuleFields, secrets: (string | null)[]): unknown[] {
    const json = JSON.stringify;
    return [
      fields.name,
      fields.description,
      fields.event,
      json(fields.event_options),
      json(fields.conditions),
      json(fields.actions),
      json(secrets),
      fields.is_active,
      fields.position,
    ];
  }

  // Each webhook action's secret sealed (one entry per action, null for the others) and replaced
  // by its mask. A mask sent back names the stored secret it masks (same address first).
  private sealSecrets(actions: Action[], current: RuleRow | undefined): { actions: Action[]; secrets: (string | null)[] } {
    const stored = current ? ((current.actions as unknown as Action[]) ?? []) : [];
    const sealed = current ? ((current.action_secrets as unknown as (string | null)[]) ?? []) : [];
    const secrets: (string | null)[] = [];
    const masked = actions.map((action, index) => {
      if (action.type !== 'send_webhook' || action.secret === undefined) {
        secrets.push(null);
        return action;
      }
      if (MASKED_SECRET.test(action.secret)) {
        const candidates = stored
          .map((old, at) => ({ old, seal: sealed[at] }))
          .filter(({ old, seal }) => old.type === 'send_webhook' && old.secret === action.secret && typeof seal === 'string');
        const match = candidates.find(({ old }) => old.type === 'send_webhook' && old.url === action.url) ?? candidates[0];
        if (!match) throw ruleInvalid(`actions[${index}].secret`, 'is a masked secret this rule does not hold; send the secret itself');
        secrets.push(match.seal as string);
        return action;
      }
      secrets.push(this.box.seal(action.secret));
      return { ...action, secret: `****${action.secret.slice(-4)}` };
    });
    return { actions: masked, secrets };
  }
}
