import { createPool } from '../database/data-source';
import { Database } from '../database/database';
import type { PlatformRuntime } from '../runtime/platform-runtime';

export async function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  if (!done(value)) throw new Error(`condition not reached in ${ms} ms; last value ${JSON.stringify(value)}`);
  return value;
}

// A second pool on the same database, as another worker replica would have.
export async function secondReplica(runtime: PlatformRuntime): Promise<{ db: Database; close(): Promise<void> }> {
  const db = new Database({ pool: createPool({ url: runtime.config.DATABASE_URL }, 4) });
  return { db, close: () => db.close() };
}
