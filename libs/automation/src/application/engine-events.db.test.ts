import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CALL_ANALYZED, type ProcessedCall } from '@engage/calls';
import type { PlatformRuntime } from '@engage/platform';
import { createSelfSignedCert } from '@engage/platform/testing';
import { engineHarness } from '../testing/engine-harness';
import { createTestTenant, customerMessage, customerSays, startRuleEngineApp, type TestTenant } from '../testing/automation-test-app';

// The engine on broadcast.response (campaigns) and call.analyzed (calls), through the bus.
describe('the rule engine on broadcast responses and analysed calls', () => {
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

  // An outbound message of the origin given, as a broadcast or a sequence would have sent it; a
  // broadcast's with its broadcast and recipient (sent now), whose reply window a reply is in.
  const sentBy = (tenant: TestTenant, conversationId: string, origin: 'broadcast' | 'sequence' | 'agent', originId: string | null) =>
    runtime.db.inTenant(tenant.ctx, async (tx) => {
      if (origin === 'broadcast') {
        await tx.execute(
          `INSERT INTO broadcasts (id, organization_id, name, channel_account_id, channel_kind, audience, content, personalised, status, started_at)
           SELECT $2, organization_id, 'Offer', channel_account_id, 'chat_app', '{}', '{"text": "Our offer"}', false, 'sending', now() FROM conversations WHERE id = $1`,
          [conversationId, originId],
        );
        await tx.execute(
          `INSERT INTO broadcast_recipients (organization_id, broadcast_id, contact_id, status, queued_at, sent_at)
           SELECT organization_id, $2, contact_id, 'sent', now(), now() FROM conversations WHERE id = $1`,
          [conversationId, originId],
        );
      }
      await tx.execute(
        `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, external_id, metadata, origin, origin_id)
         SELECT organization_id, id, contact_id, channel_account_id, 'OUTBOUND', 'SENT', 'Our offer', gen_random_uuid()::text, '{}', $2, $3
         FROM conversations WHERE id = $1`,
        [conversationId, origin, originId],
      );
    });

  it('should run broadcast.response rules on a customer’s reply to a broadcast’s or a sequence’s message, not to an agent’s', async () => {
    const tenant = await createTestTenant(app);
    const ruleId = await h.createRule(tenant, {
      name: 'Interested',
      event: 'broadcast.response',
      conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'yes' }] },
      actions: [
        { type: 'add_contact_tags', tags: ['interested'] },
        { type: 'add_note', text: 'Answered the offer: {{message.content}}' },
      ],
    });
    const first = await customerMessage(app, tenant, 'Hello');
    await sentBy(tenant, first.conversationId, 'broadcast', randomUUID());
    const reply = await customerSays(app, tenant, first.chat, 'Yes please');
    let runs = await h.settledRuns(tenant);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      rule_id: ruleId,
      event: 'broadcast.response',
      subject_type: 'message',
      subject_id: reply.messageId,
      status: 'succeeded',
      depth: 0,
    });
    expect(await h.read(tenant, `contacts?id=eq.${first.contactId}&select=tags`)).toEqual([{ tags: ['interested'] }]);
    expect(await h.read(tenant, `notes?contact_id=eq.${first.contactId}&select=body`)).toEqual([{ body: 'Answered the offer: Yes please' }]);

    // A sequence's message answered: a run; an agent's message answered: no broadcast.response.
    const second = await customerMessage(app, tenant, 'Hi');
    await sentBy(tenant, second.conversationId, 'sequence', randomUUID());
    const sequenceReply = await customerSays(app, tenant, second.chat, 'yes, tell me more');
    const third = await customerMessage(app, tenant, 'Hey');
    await sentBy(tenant, third.conversationId, 'agent', null);
    await customerSays(app, tenant, third.chat, 'yes');
    runs = await h.settledRuns(tenant, 2);
    expect(runs.map((run) => run.subject_id)).toEqual([reply.messageId, sequenceReply.messageId]);
  });

  it('should run call.analyzed rules on the analysed call and its contact, and skip contact actions for a call without one', async () => {
    const tenant = await createTestTenant(app);
    const ruleId = await h.createRule(tenant, {
      name: 'Analysed calls',
      event: 'call.analyzed',
      conditions: { all: [{ field: 'contact.tags', operator: 'not_contains', value: 'no-calls' }] },
      actions: [
        { type: 'add_contact_tags', tags: ['called'] },
        { type: 'create_task', title: 'Follow up the call with {{contact.first_name | the caller}}', due_in_minutes: 60 },
      ],
    });
    const created = await h.rest('POST', tenant, 'contacts', { first_name: 'Ada', phones: ['+201001230000'] });
    expect(created.statusCode).toBe(201);
    const contactId = created.json()[0].id as string;
    const analysed = (contact: string | null) =>
      runtime.db.inTenant(tenant.ctx, async (tx) => {
        const [row] = await tx.query<{ id: string }>(
          `INSERT INTO call_records (organization_id, contact_id, status, recording_url) VALUES (app_org_id(), $1, 'completed', 'calls/x.mp3') RETURNING id`,
          [contact],
        );
        const call: ProcessedCall = {
          id: row.id,
          organization_id: tenant.ctx.organizationId,
          contact_id: contact,
          source: 'mobile',
          status: 'completed',
          analyser: 'local-heuristic',
          sentiment: 'positive',
          keywords: ['price'],
          action_items: [],
          summary: null,
          failure_reason: null,
          completed_at: new Date().toISOString(),
        };
        await tx.emit([CALL_ANALYZED.create({ organizationId: tenant.ctx.organizationId, aggregateId: row.id, payload: { call, actor_id: null } })]);
        return row.id;
      });
    const withContact = await analysed(contactId);
    const withoutContact = await analysed(null);

    const runs = await h.settledRuns(tenant, 2);
    expect(runs.map((run) => [run.rule_id, run.event, run.subject_type, run.subject_id, run.status])).toEqual([
      [ruleId, 'call.analyzed', 'call', withContact, 'succeeded'],
      [ruleId, 'call.analyzed', 'call', withoutContact, 'failed'],
    ]);
    expect(runs[1].actions).toEqual([
      { type: 'add_contact_tags', status: 'skipped', error: 'there is no contact to act on' },
      { type: 'create_task', status: 'failed', error: 'there is no contact or deal to link the task to' },
    ]);
    expect(await h.read(tenant, `contacts?id=eq.${contactId}&select=tags`)).toEqual([{ tags: ['called'] }]);
    expect(await h.read(tenant, `tasks?contact_id=eq.${contactId}&select=title`)).toEqual([{ title: 'Follow up the call with Ada' }]);
  });
});
