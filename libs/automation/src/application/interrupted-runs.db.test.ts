import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { createTestTenant, startAutomationApp, type TestTenant } from '../testing/automation-test-app';
import { RuleEngine } from './rule-engine';
import { TimerPass } from './timer-pass.job';

// A run claimed by a process that then stopped stays `running`; the timer pass finishes it as
// failed (interrupted) once it is 15 minutes old, and leaves the others alone.
describe('interrupted runs', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startAutomationApp());
  });
  afterAll(() => close());

  const passAt = (minutes: number) => new TimerPass(runtime.db, app.get(RuleEngine), { now: () => new Date(Date.now() + minutes * 60_000) });
  const runs = async (tenant: TestTenant) => {
    const res = await app.inject({ method: 'GET', url: '/rest/v1/automation_runs?select=id,status,skip_reason,finished_at&order=id', headers: tenant.session });
    return res.json() as { id: string; status: string; skip_reason: string | null; finished_at: string | null }[];
  };

  it('should finish a run left running 15 minutes after its claim as failed, interrupted, and leave running, waiting and finished runs be', async () => {
    const tenant = await createTestTenant(app);
    const created = await app.inject({
      method: 'POST',
      url: '/rest/v1/automation_rules',
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: { name: 'Tag', event: 'contact.created', actions: [{ type: 'add_contact_tags', tags: ['new'] }] },
    });
    const ruleId = created.json()[0].id as string;
    // As the engine's claim leaves them: running since now; and a waiting and a finished run.
    const insert = (status: string, resumeAt: Date | null) =>
      runtime.db.inTenant(
        tenant.ctx,
        async (tx) =>
          (
            await tx.query<{ id: string }>(
              `INSERT INTO automation_runs (organization_id, rule_id, event, event_id, subject_type, subject_id, status, started_at, claimed_at, resume_at)
             VALUES (app_org_id(), $1, 'contact.created', $2, 'contact', $3, $4, now(), now(), $5) RETURNING id`,
              [ruleId, randomUUID(), randomUUID(), status, resumeAt],
            )
          )[0].id,
      );
    const stuck = await insert('running', null);
    const waiting = await insert('waiting', new Date(Date.now() + 60 * 60_000));
    const done = await insert('succeeded', null);

    await passAt(14).finishInterrupted();
    expect((await runs(tenant)).find((run) => run.id === stuck)).toMatchObject({ status: 'running', finished_at: null });

    await passAt(16).finishInterrupted();
    const after = new Map((await runs(tenant)).map((run) => [run.id, run]));
    expect(after.get(stuck)).toMatchObject({ status: 'failed', skip_reason: 'interrupted', finished_at: expect.any(String) });
    expect(after.get(waiting)).toMatchObject({ status: 'waiting', skip_reason: null });
    expect(after.get(done)).toMatchObject({ status: 'succeeded', skip_reason: null });
  });
});
