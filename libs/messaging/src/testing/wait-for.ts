import { setTimeout as sleep } from 'node:timers/promises';

// Polls until `check` gives a truthy value (background work in tests); fails after `ms`.
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(20);
  }
}
