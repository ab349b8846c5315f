import type { Database } from '@engage/platform';
import { ValidationFailed } from '@engage/shared-kernel';

// `npm run admin -- set-plan --id growth --price 89 ...`: adds a plan or changes the flags given
// (docs/billing.md). Plans are written nowhere else but migrations.
export type PlanInput = Record<string, string>;

const PLAN_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const TEXT_FLAGS = { name: 'name', description: 'description', 'product-lookup-id': 'product_lookup_id', 'price-lookup-id': 'price_lookup_id' } as const;
const LIMIT_FLAGS = {
  'max-contacts': 'limit_contacts',
  'max-conversations': 'limit_conversations_per_month',
  'max-members': 'limit_team_members',
} as const;
const KNOWN = new Set(['id', 'price', 'currency', 'interval', 'active', 'json', ...Object.keys(TEXT_FLAGS), ...Object.keys(LIMIT_FLAGS)]);
const REQUIRED_FOR_NEW = ['name', 'price', 'currency', 'interval'];

const bad = (flag: string, message: string) => ValidationFailed('invalid_flag', `--${flag} ${message}`, { flag });

function columnsOf(flags: PlanInput): Record<string, unknown> {
  const unknown = Object.keys(flags).find((flag) => !KNOWN.has(flag));
  if (unknown) throw bad(unknown, 'is not a set-plan flag');
  const columns: Record<string, unknown> = {};
  for (const [flag, column] of Object.entries(TEXT_FLAGS)) if (flags[flag] !== undefined) columns[column] = flags[flag];
  for (const [flag, column] of Object.entries(LIMIT_FLAGS)) {
    const value = flags[flag];
    if (value === undefined) continue;
    if (value !== 'unlimited' && !/^\d{1,9}$/.test(value)) throw bad(flag, 'must be a whole number or "unlimited"');
    columns[column] = value === 'unlimited' ? null : Number(value);
  }
  if (flags.price !== undefined) {
    if (!/^\d{1,10}(\.\d{1,2})?$/.test(flags.price)) throw bad('price', 'must be an amount like 29 or 29.90');
    columns.price = flags.price;
  }
  if (flags.currency !== undefined) {
    if (!/^[A-Za-z]{3}$/.test(flags.currency)) throw bad('currency', 'must be a three-letter ISO 4217 code');
    columns.currency = flags.currency.toUpperCase();
  }
  if (flags.interval !== undefined) {
    if (!['month', 'year'].includes(flags.interval)) throw bad('interval', 'must be month or year');
    columns.interval = flags.interval;
  }
  if (flags.active !== undefined) {
    if (!['true', 'false'].includes(flags.active)) throw bad('active', 'must be true or false');
    columns.is_active = flags.active === 'true';
  }
  return columns;
}

export async function setPlan(db: Database, flags: PlanInput): Promise<Record<string, unknown>> {
  const id = flags.id;
  if (id === undefined || !PLAN_ID.test(id)) throw bad('id', 'is required: lower-case letters, digits, - or _, up to 63 characters');
  const columns = columnsOf(flags);
  return db.asSystem(async (tx) => {
    const [existing] = await tx.query('SELECT id FROM subscription_plans WHERE id = $1 FOR UPDATE', [id]);
    const names = Object.keys(columns);
    const values = Object.values(columns);
    if (!existing) {
      const missing = REQUIRED_FOR_NEW.find((flag) => flags[flag] === undefined);
      if (missing) throw bad(missing, `is required for a new plan (${REQUIRED_FOR_NEW.map((flag) => `--${flag}`).join(', ')})`);
      const placeholders = names.map((_, i) => `$${i + 2}`).join(', ');
      const [row] = await tx.query(`INSERT INTO subscription_plans (id, ${names.join(', ')}) VALUES ($1, ${placeholders}) RETURNING *`, [id, ...values]);
      return { created: true, plan: row };
    }
    if (names.length === 0) throw ValidationFailed('invalid_flag', 'nothing to change: give at least one flag besides --id');
    const assignments = names.map((name, i) => `${name} = $${i + 2}`).join(', ');
    const [row] = await tx.query(`UPDATE subscription_plans SET ${assignments}, updated_at = now() WHERE id = $1 RETURNING *`, [id, ...values]);
    return { created: false, plan: row };
  });
}
