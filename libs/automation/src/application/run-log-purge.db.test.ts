import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '@engage/platform';
import { createTestTenant, startAutomationApp, type TestTenant } from '../testing/automation-test-app';
import { automationManifest } from '../index';
import { RunLogPurge } from './run-log-purge.job';

describe('the run log retention', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startAutomationApp());
  });
  afterAll(() => close());

  // A rule of the tenant and runs of it that started `daysAgo` before `now`.
  async function runsOf(tenant: TestTenant, now: Date, daysAgo: number[]): Promise<void> {
    const created = await app.inject({
      method: 'POST',
      url: '/rest/v1/automation_rules',
      headers: { ...tenant.session, prefer: 'return=representation' },
      payload: { name: 'Tag new contacts', event: 'contact.created', actions: [{ type: 'add_contact_tags', tags: ['new'] }] },
    });
    const ruleId = created.json()[0].id as string;
    await runtime.db.inTenant(tenant.ctx, async (tx) => {
      for (const days of daysAgo) {
        await tx.query(
          `INSERT INTO automation_runs (organization_id, rule_id, event, event_id, subject_type, subject_id, status, started_at)
           VALUES (app_org_id(), $1, 'contact.created', $2, 'contact', $3, 'succeeded', $4)`,
          [ruleId, randomUUID(), randomUUID(), new Date(now.getTime() - days * 86_400_000)],
        );
      }
    });
  }

  const ages = (tenant: TestTenant, now: Date) =>
    runtime.db.inTenant(tenant.ctx, async (tx) =>
      (await tx.query<{ started_at: Date }>(`SELECT started_at FROM automation_runs ORDER BY started_at`)).map((row) =>
        Math.round((now.getTime() - row.started_at.getTime()) / 86_400_000),
      ),
    );

  it("should delete every organization's runs older than 30 days and keep the others", async () => {
    const now = new Date(Date.now() + 400 * 86_400_000);
    const first = await createTestTenant(app);
    const second = await createTestTenant(app);
    await runsOf(first, now, [45, 31, 29, 1]);
    await runsOf(second, now, [31, 2]);
    const deleted = await new RunLogPurge(runtime.db, { now: () => now }).handle();
    expect(deleted).toBe(3);
    expect(await ages(first, now)).toEqual([29, 1]);
    expect(await ages(second, now)).toEqual([2]);
  });

  it('should be scheduled hourly by the manifest, beside the timer pass every 30 s and the bot sessions pass every minute', () => {
    const schedules = automationManifest.jobs.schedules.map((schedule) => ({
      name: schedule.job.name,
      when: 'cron' in schedule ? schedule.cron : schedule.everyMs,
    }));
    expect(schedules).toEqual([
      { name: 'automation.run-purge', when: '53 * * * *' },
      { name: 'automation.timer-pass', when: 30_000 },
      { name: 'automation.bot-sessions', when: 60_000 },
    ]);
  });
});
