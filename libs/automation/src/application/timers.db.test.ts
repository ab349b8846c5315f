import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert } from '@engage/platform/testing';
import { engineHarness, NO_PACING } from '../testing/engine-harness';
import { createTestTenant, customerMessage, customerSays, startRuleEngineApp, type TestTenant } from '../testing/automation-test-app';
import { RuleEngine } from './rule-engine';
import { TimerPass } from './timer-pass.job';

type Timer = { episode_id: string | null; started_at: Date | null; fired_rule_ids: string[] };

describe('conversation timers', () => {
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

  // A timer pass whose clock reads `minutes` from now.
  const passAt = (minutes: number) => new TimerPass(runtime.db, app.get(RuleEngine), { now: () => new Date(Date.now() + minutes * 60_000) });
  const timer = async (tenant: TestTenant, conversationId: string, kind: string) =>
    (
      await runtime.db.inTenant(tenant.ctx, (tx) =>
        tx.query<Timer>(`SELECT episode_id, started_at, fired_rule_ids FROM automation_timers WHERE conversation_id = $1 AND kind = $2`, [
          conversationId,
          kind,
        ]),
      )
    )[0];
  // The timer once the events before it are consumed and it is open (or closed).
  const timerWhen = (tenant: TestTenant, conversationId: string, kind: string, open: boolean) =>
    h.until(
      () => timer(tenant, conversationId, kind),
      (t) => (t?.episode_id != null) === open,
    );
  const tagRule = (event: string, minutes: number, tag: string, conditions: object = { all: [] }) => ({
    name: `${event} after ${minutes}`,
    event,
    event_options: { minutes },
    conditions,
    actions: [{ type: 'add_contact_tags', tags: [tag] }],
  });
  const tenantWithProvider = async () => {
    const tenant = await createTestTenant(app);
    await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'timer-test-key');
    return tenant;
  };
  const timerRuns = async (tenant: TestTenant) => (await h.settledRuns(tenant, 0)).filter((run) => run.event.startsWith('conversation.'));

  it('should arm unanswered at a customer’s message and fire each rule once when its minutes have passed, as a depth-0 run', async () => {
    const tenant = await tenantWithProvider();
    const soon = await h.createRule(tenant, tagRule('conversation.unanswered', 10, 'waited-10'));
    const later = await h.createRule(tenant, tagRule('conversation.unanswered', 60, 'waited-60'));
    const { conversationId, contactId } = await customerMessage(app, tenant, 'Hello?', undefined, NO_PACING);
    const armed = await timerWhen(tenant, conversationId, 'conversation.unanswered', true);
    expect(armed.episode_id).toEqual(expect.any(String));

    await passAt(0).fireDue();
    await passAt(9).fireDue();
    expect(await timerRuns(tenant)).toEqual([]);

    await passAt(11).fireDue();
    await passAt(12).fireDue();
    let runs = await timerRuns(tenant);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      rule_id: soon,
      event: 'conversation.unanswered',
      event_id: armed.episode_id,
      subject_type: 'conversation',
      subject_id: conversationId,
      status: 'succeeded',
      depth: 0,
    });
    expect(await h.read(tenant, `contacts?id=eq.${contactId}&select=tags`)).toEqual([{ tags: ['waited-10'] }]);

    await passAt(61).fireDue();
    await passAt(61).fireDue();
    runs = await timerRuns(tenant);
    expect(runs.map((run) => run.rule_id)).toEqual([soon, later]);
    expect((await timer(tenant, conversationId, 'conversation.unanswered')).fired_rule_ids.sort()).toEqual([soon, later].sort());
  });

  it('should end unanswered at an agent’s reply and arm customer_silent, which the customer’s answer ends in turn', async () => {
    const tenant = await tenantWithProvider();
    const unanswered = await h.createRule(tenant, tagRule('conversation.unanswered', 10, 'unanswered'));
    const silent = await h.createRule(tenant, tagRule('conversation.customer_silent', 30, 'silent'));
    const { conversationId, chat } = await customerMessage(app, tenant, 'Anyone there?', undefined, NO_PACING);
    const first = await timerWhen(tenant, conversationId, 'conversation.unanswered', true);

    const reply = await app.inject({
      method: 'POST',
      url: `/functions/v1/messaging/conversations/${conversationId}/reply`,
      headers: tenant.session,
      payload: { message: 'Yes, how can I help?' },
    });
    expect(reply.statusCode).toBe(200);
    await timerWhen(tenant, conversationId, 'conversation.unanswered', false);
    const silence = await timerWhen(tenant, conversationId, 'conversation.customer_silent', true);

    await passAt(11).fireDue();
    expect(await timerRuns(tenant)).toEqual([]);
    await passAt(31).fireDue();
    let runs = await timerRuns(tenant);
    expect(runs.map((run) => [run.rule_id, run.event, run.event_id])).toEqual([[silent, 'conversation.customer_silent', silence.episode_id]]);

    // The customer answers: silence ends, and a new unanswered episode starts, which fires in its turn.
    await customerSays(app, tenant, chat, 'I need a price');
    await timerWhen(tenant, conversationId, 'conversation.customer_silent', false);
    const second = await timerWhen(tenant, conversationId, 'conversation.unanswered', true);
    expect(second.episode_id).not.toEqual(first.episode_id);
    await passAt(11).fireDue();
    runs = await timerRuns(tenant);
    expect(runs.map((run) => [run.rule_id, run.event_id])).toEqual([
      [silent, silence.episode_id],
      [unanswered, second.episode_id],
    ]);
  });

  it('should fire a rule once per episode when two passes race, and evaluate its conditions on the conversation at firing time', async () => {
    const tenant = await tenantWithProvider();
    const open = await h.createRule(
      tenant,
      tagRule('conversation.unanswered', 15, 'open-waiting', { all: [{ field: 'conversation.status', operator: 'equals', value: 'OPEN' }] }),
    );
    const a = await customerMessage(app, tenant, 'First', undefined, NO_PACING);
    const b = await customerMessage(app, tenant, 'Second', undefined, NO_PACING);
    await timerWhen(tenant, a.conversationId, 'conversation.unanswered', true);
    await timerWhen(tenant, b.conversationId, 'conversation.unanswered', true);
    // b is resolved before its timer is due: its rule's condition no longer holds then.
    const resolved = await app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/conversations/${b.conversationId}/status`,
      headers: tenant.session,
      payload: { status: 'RESOLVED' },
    });
    expect(resolved.statusCode).toBe(200);

    await Promise.all([passAt(16).fireDue(), passAt(16).fireDue(), passAt(17).fireDue()]);
    const runs = await timerRuns(tenant);
    expect(runs.map((run) => [run.rule_id, run.subject_id])).toEqual([[open, a.conversationId]]);
    expect(await h.read(tenant, `contacts?id=eq.${a.contactId}&select=tags`)).toEqual([{ tags: ['open-waiting'] }]);
    expect(await h.read(tenant, `contacts?id=eq.${b.contactId}&select=tags`)).toEqual([{ tags: [] }]);
    // Fired (evaluated) once on each episode, matched or not.
    expect((await timer(tenant, b.conversationId, 'conversation.unanswered')).fired_rule_ids).toEqual([open]);
  });

  it('should fire a rule saved after an episode started when the episode falls due after it, not one already overdue', async () => {
    const tenant = await tenantWithProvider();
    const { conversationId } = await customerMessage(app, tenant, 'Hi', undefined, NO_PACING);
    await timerWhen(tenant, conversationId, 'conversation.unanswered', true);
    const created = await h.createRule(tenant, tagRule('conversation.unanswered', 10, 'late-rule'));
    // As if saved 20 minutes from now: the episode (due in 10) was overdue when it was saved.
    await runtime.db.inTenant(tenant.ctx, (tx) =>
      tx.execute(`UPDATE automation_rules SET updated_at = updated_at + interval '20 minutes' WHERE id = $1`, [created]),
    );
    const fresh = await h.createRule(tenant, tagRule('conversation.unanswered', 10, 'fresh-rule'));
    await passAt(25).fireDue();
    const runs = await timerRuns(tenant);
    expect(runs.map((run) => run.rule_id)).toEqual([fresh]);
  });
});
