import type { Tx } from '@engage/platform';
import { type Condition, type Filter, isEmbed, type ReadPlan, type SelectItem } from './parse/plan';
import type { Registry, TableDefinition, ValueNormalizer } from './registry';

const NORMALISED = new Set(['eq', 'neq', 'isdistinct', 'in', 'cs', 'cd', 'ov']);

function conditionsOf(filters: Filter[], into: Condition[]): Condition[] {
  for (const filter of filters) {
    if (filter.kind === 'condition') into.push(filter);
    else if (filter.kind === 'logic') conditionsOf(filter.children, into);
  }
  return into;
}

// Each table of the plan with the conditions on it: the top level and every embed, nested.
function byTable(registry: Registry, table: string, filters: Filter[], select: SelectItem[], into: [TableDefinition, Condition[]][]): void {
  const definition = registry.tables.get(table);
  if (definition?.normalizers) into.push([definition, conditionsOf(filters, [])]);
  for (const item of select) if (isEmbed(item)) byTable(registry, item.embed.table, item.embed.filters, item.embed.select, into);
}

// The plan's conditions a table's normaliser rewrites, each with its normaliser.
export function normalizedConditions(registry: Registry, plan: ReadPlan): [ValueNormalizer, Condition][] {
  const targets: [TableDefinition, Condition[]][] = [];
  byTable(registry, plan.table, plan.filters, plan.select, targets);
  const found: [ValueNormalizer, Condition][] = [];
  for (const [table, conditions] of targets) {
    for (const condition of conditions) {
      const normalize = table.normalizers?.[condition.field.column];
      if (!normalize || condition.field.jsonPath.length || !NORMALISED.has(condition.operator) || condition.quantifier) continue;
      found.push([normalize, condition]);
    }
  }
  return found;
}

// Runs the tables' value normalisers over the plan's filter values, in place, before SQL is built.
export async function normalizePlan(tx: Tx, registry: Registry, plan: ReadPlan, conditions = normalizedConditions(registry, plan)): Promise<void> {
  for (const [normalize, condition] of conditions) {
    if (typeof condition.value === 'string') {
      [condition.value] = await normalize(tx, [condition.value]);
      continue;
    }
    const items = condition.value.filter((item): item is string => item !== null);
    const normalised = await normalize(tx, items);
    let next = 0;
    condition.value = condition.value.map((item) => (item === null ? null : normalised[next++]));
  }
}
