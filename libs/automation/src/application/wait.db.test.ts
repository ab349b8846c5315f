import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert } from '@engage/platform/testing';
import { engineHarness, NO_PACING, type Run } from '../testing/engine-harness';
import { createTestTenant, customerMessage, startRuleEngineApp, type TestTenant } from '../testing/automation-test-app';
import { RuleEngine } from './rule-engine';
import { RunLogPurge } from './run-log-purge.job';
import { TimerPass } from './timer-pass.job';

// The wait action: the run pauses (`waiting`, resume_at) and a timer pass, any process, later goes
// on with the actions after it when the rule, the episode and the conditions still allow.
describe('rules that wait', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  const h = engineHarness(
    () => app,
    () => runtime,
  );

  beforeAll(async () => {
    ({ app, runtime, close } = await startRuleEngineApp(createSelfSignedCert().certPath));
  });
  afterAll(() => close());

  const minutesFromNow = (minutes: number) => ({ now: () => new Date(Date.now() + minutes * 60_000) });
  // A new pass each time: nothing of a paused run is kept in a process.
  const passAt = (minutes: number) => new TimerPass(runtime.db, app.get(RuleEngine), minutesFromNow(minutes));
  const runsOf = async (tenant: TestTenant, status?: string) =>
    h.until(
      () => h.read<Run>(tenant, 'automation_runs?order=started_at.asc'),
      (runs) => runs.length > 0 && (status === undefined || runs.every((run) => run.status === status)),
    );
  const tagsOf = async (tenant: TestTenant, contactId: string) => (await h.read<{ tags: string[] }>(tenant, `contacts?id=eq.${contactId}&select=tags`))[0].tags;

  it('should pause a run at a wait and run the actions after it once its minutes have passed, once across racing passes', async () => {
    const tenant = await createTestTenant(app);
    const ruleId = await h.createRule(tenant, {
      name: 'Tag now and later',
      event: 'message.received',
      actions: [
        { type: 'add_contact_tags', tags: ['now'] },
        { type: 'wait', minutes: 5 },
        { type: 'add_note', text: 'Five minutes later' },
      ],
    });
    const { contactId, messageId } = await customerMessage(app, tenant, 'Hello', undefined, NO_PACING);
    const [waiting] = await runsOf(tenant, 'waiting');
    expect(waiting).toMatchObject({ rule_id: ruleId, subject_id: messageId, status: 'waiting', finished_at: null });
    expect(waiting.actions).toEqual([
      { type: 'add_contact_tags', status: 'succeeded', result: { changed: true } },
      { type: 'wait', status: 'succeeded', result: { resume_at: expect.any(String) } },
    ]);
    expect(waiting.resume_at).toEqual(expect.any(String));
    expect(await tagsOf(tenant, contactId)).toEqual(['now']);
    expect(await h.read(tenant, `notes?contact_id=eq.${contactId}`)).toEqual([]);
    // The retention purge keeps a run that still has actions to run.
    await new RunLogPurge(runtime.db, minutesFromNow(40 * 24 * 60)).handle();

    await passAt(4).resumeDue();
    expect((await runsOf(tenant))[0].status).toBe('waiting');
    await Promise.all([passAt(6).resumeDue(), passAt(6).resumeDue()]);
    const [done] = await runsOf(tenant, 'succeeded');
    expect(done.actions.map((action) => [action.type, action.status])).toEqual([
      ['add_contact_tags', 'succeeded'],
      ['wait', 'succeeded'],
      ['add_note', 'succeeded'],
    ]);
    expect(done.resume_at).toBeNull();
    expect(done.finished_at).not.toBeNull();
    expect(await h.read(tenant, `notes?contact_id=eq.${contactId}&select=body`)).toEqual([{ body: 'Five minutes later' }]);
  });

  it('should skip the actions after a wait when the conditions no longer hold, or the rule changed meanwhile', async () => {
    const tenant = await createTestTenant(app);
    await h.createRule(tenant, {
      name: 'Unless opted out',
      event: 'message.received',
      conditions: { all: [{ field: 'contact.tags', operator: 'not_contains', value: 'stop' }] },
      actions: [
        { type: 'wait', minutes: 10 },
        { type: 'add_note', text: 'Followed up' },
      ],
    });
    const { contactId } = await customerMessage(app, tenant, 'Hello', undefined, NO_PACING);
    await runsOf(tenant, 'waiting');
    expect((await h.rest('PATCH', tenant, `contacts?id=eq.${contactId}`, { tags: ['stop'] })).statusCode).toBe(200);
    await passAt(11).resumeDue();
    const [run] = await runsOf(tenant, 'succeeded');
    expect(run.actions).toEqual([
      { type: 'wait', status: 'succeeded', result: { resume_at: expect.any(String) } },
      { type: 'add_note', status: 'skipped', error: 'not run: the conditions no longer hold' },
    ]);
    expect(await h.read(tenant, `notes?contact_id=eq.${contactId}`)).toEqual([]);

    const other = await createTestTenant(app);
    const ruleId = await h.createRule(other, {
      name: 'Later',
      event: 'message.received',
      actions: [
        { type: 'wait', minutes: 10 },
        { type: 'add_note', text: 'x' },
      ],
    });
    await customerMessage(app, other, 'Hello', undefined, NO_PACING);
    await runsOf(other, 'waiting');
    expect((await h.rest('PATCH', other, `automation_rules?id=eq.${ruleId}`, { name: 'Later, renamed' })).statusCode).toBe(200);
    await passAt(11).resumeDue();
    expect((await runsOf(other, 'succeeded'))[0].actions[1]).toEqual({
      type: 'add_note',
      status: 'skipped',
      error: 'not run: the rule was changed during the wait',
    });
  });

  it('should not go on with a timer rule’s run after a reply ended its episode', async () => {
    const tenant = await createTestTenant(app);
    await h.createRule(tenant, {
      name: 'Chase',
      event: 'conversation.unanswered',
      event_options: { minutes: 10 },
      actions: [
        { type: 'add_contact_tags', tags: ['chased'] },
        { type: 'wait', minutes: 30 },
        { type: 'set_conversation_status', status: 'PENDING' },
      ],
    });
    const { conversationId, contactId } = await customerMessage(app, tenant, 'Hello?', undefined, NO_PACING);
    await h.until(
      () =>
        runtime.db.inTenant(tenant.ctx, (tx) =>
          tx.query(`SELECT 1 FROM automation_timers WHERE conversation_id = $1 AND kind = 'conversation.unanswered' AND episode_id IS NOT NULL`, [
            conversationId,
          ]),
        ),
      (rows) => rows.length === 1,
    );
    await passAt(11).fireDue();
    await runsOf(tenant, 'waiting');
    // The agent's reply ends the episode (its message.sent, through the engine's consumer).
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'wait-test-key');
    const reply = await app.inject({
      method: 'POST',
      url: `/functions/v1/messaging/conversations/${conversationId}/reply`,
      headers: tenant.session,
      payload: { message: 'On it' },
    });
    expect(reply.statusCode).toBe(200);
    await h.until(
      () =>
        runtime.db.inTenant(tenant.ctx, (tx) =>
          tx.query(`SELECT 1 FROM automation_timers WHERE conversation_id = $1 AND kind = 'conversation.unanswered' AND episode_id IS NULL`, [conversationId]),
        ),
      (rows) => rows.length === 1,
    );
    await passAt(45).resumeDue();
    const [run] = await runsOf(tenant, 'succeeded');
    expect(run.actions[2]).toEqual({ type: 'set_conversation_status', status: 'skipped', error: 'not run: a reply ended the episode during the wait' });
    expect(await tagsOf(tenant, contactId)).toEqual(['chased']);
    expect(await h.read(tenant, `conversations?id=eq.${conversationId}&select=status`)).toEqual([{ status: 'OPEN' }]);
  });
});
