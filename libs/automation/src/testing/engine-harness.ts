import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import type { TestTenant } from '@engage/identity/testing';

export type Run = {
  id: string;
  rule_id: string;
  event: string;
  event_id: string;
  subject_type: string;
  subject_id: string;
  status: string;
  skip_reason: string | null;
  actions: { type: string; status: string; error?: string; result?: Record<string, unknown> }[];
  depth: number;
  started_at: string;
  finished_at: string | null;
  resume_at: string | null;
};

// Pacing off, so a rule's message goes at once to the sandbox chat-app provider.
export const NO_PACING = { quiet_hours: null, gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_recipient_min_gap_seconds: 0 };

// Reading and writing through /rest/v1 as the tenant's owner, and waiting for the relay and the
// rule engine to be done with every event.
export function engineHarness(app: () => NestFastifyApplication, runtime: () => PlatformRuntime) {
  const rest = (method: 'GET' | 'POST' | 'PATCH', tenant: TestTenant, path: string, payload?: object) =>
    app().inject({ method, url: `/rest/v1/${path}`, headers: { ...tenant.session, prefer: 'return=representation' }, ...(payload ? { payload } : {}) });
  const read = async <T = Record<string, unknown>>(tenant: TestTenant, path: string) => {
    const res = await rest('GET', tenant, path);
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.body}`);
    return res.json() as T[];
  };
  const createRule = async (tenant: TestTenant, rule: object) => {
    const res = await rest('POST', tenant, 'automation_rules', rule);
    if (res.statusCode !== 201) throw new Error(`rule: ${res.body}`);
    return res.json()[0].id as string;
  };
  const outboxDrained = async () =>
    (await runtime().db.asSystem((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`)))[0].n === 0;
  // Polls until `done` holds of what `get` answers (or gives up after `ms` and answers the last).
  const until = async <T>(get: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await get();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  // The tenant's runs once every event is consumed and no run is still running.
  const settledRuns = async (tenant: TestTenant, atLeast = 1): Promise<Run[]> => {
    let drained = false;
    return until(
      async () => {
        drained = await outboxDrained();
        return read<Run>(tenant, 'automation_runs?order=started_at.asc,id.asc');
      },
      (runs) => drained && runs.length >= atLeast && runs.every((run) => run.status !== 'running' && run.status !== 'delivering'),
    );
  };
  return { rest, read, createRule, outboxDrained, until, settledRuns };
}
