import type { Tx } from '@engage/platform';

// Named parameters (`:start`) turned into PostgreSQL's positional ones, each name once, so a
// statement gets exactly the values it uses (an unused $n would have no type). Casts (`::date`)
// are left alone. Names come from our SQL texts only; values are always parameters.
export function named(sql: string, values: Record<string, unknown>): { text: string; params: unknown[] } {
  const order: string[] = [];
  const text = sql.replace(/(?<!:):([a-z_]+)\b/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`analytics: no value for :${name}`);
    if (!order.includes(name)) order.push(name);
    return `$${order.indexOf(name) + 1}`;
  });
  return { text, params: order.map((name) => values[name]) };
}

export function queryNamed<R = Record<string, unknown>>(tx: Tx, sql: string, values: Record<string, unknown>): Promise<R[]> {
  const { text, params } = named(sql, values);
  return tx.query<R>(text, params);
}

export function executeNamed(tx: Tx, sql: string, values: Record<string, unknown>): Promise<number> {
  const { text, params } = named(sql, values);
  return tx.execute(text, params);
}
