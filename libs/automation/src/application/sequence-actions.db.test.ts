import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { campaignsManifest, campaignsMigrations, CampaignsModule } from '@engage/campaigns';
import { crmManifest, crmMigrations, CrmModule } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations } from '@engage/identity';
import { messagingManifest, messagingMigrations, MessagingModule } from '@engage/messaging';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import type { EventContract } from '@engage/shared-kernel';
import { automationManifest, automationMigrations, AutomationModule } from '../index';
import { engineHarness } from '../testing/engine-harness';
import { createTestTenant, customerMessage, customerSays } from '../testing/automation-test-app';

// start_sequence and stop_sequences: the engine sends campaigns' commands on the command bus
// (api and worker in one process with campaigns composed, the sandbox chat-app provider).
describe('the rule engine’s sequence actions', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;
  const h = engineHarness(
    () => app,
    () => runtime,
  );

  beforeAll(async () => {
    const manifests = [identityManifest, crmManifest, messagingManifest, campaignsManifest, automationManifest];
    ({ app, runtime, close } = await startTestApp(
      [CrmModule, MessagingModule, CampaignsModule, AutomationModule, DataApiModule.forRoot(manifests.flatMap((m) => m.tables))],
      {
        role: 'all',
        migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...campaignsMigrations, ...automationMigrations],
        events: manifests.flatMap((m) => m.publishes as readonly EventContract[]),
      },
    ));
  });
  afterAll(() => close());

  it('should enrol the event’s contact, leave a running enrolment alone, and stop the contact’s sequences', async () => {
    const tenant = await createTestTenant(app);
    const first = await customerMessage(app, tenant, 'Hello');
    const created = await app.inject({
      method: 'POST',
      url: '/functions/v1/campaigns/sequences',
      headers: tenant.session,
      payload: {
        name: 'Welcome',
        channel_account_id: first.channelAccountId,
        steps: [{ delay: { days: 1 }, content: { text: 'Welcome' } }],
        exit_on: { reply: false },
      },
    });
    expect(created.statusCode).toBe(201);
    const sequenceId = created.json().id as string;
    await app.inject({ method: 'POST', url: `/functions/v1/campaigns/sequences/${sequenceId}/activate`, headers: tenant.session });
    await h.createRule(tenant, {
      name: 'Join',
      event: 'message.received',
      conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'join' }] },
      actions: [
        { type: 'set_contact_field', field: 'opt_in_status', value: true },
        { type: 'start_sequence', sequence_id: sequenceId },
        { type: 'start_sequence', sequence_id: randomUUID() },
      ],
    });
    await h.createRule(tenant, {
      name: 'Stop',
      event: 'message.received',
      conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'stop' }] },
      actions: [{ type: 'stop_sequences' }],
    });

    await customerSays(app, tenant, first.chat, 'I want to join');
    let runs = await h.settledRuns(tenant, 1);
    expect(runs[0].actions).toMatchObject([
      { type: 'set_contact_field', status: 'succeeded' },
      { type: 'start_sequence', status: 'succeeded', result: { enrolled: true, already_enrolled: false } },
      { type: 'start_sequence', status: 'failed', error: expect.stringContaining('sequence') },
    ]);
    const enrolled = await h.read<{ contact_id: string; status: string; version: number }>(tenant, `sequence_enrollments?sequence_id=eq.${sequenceId}`);
    expect(enrolled).toEqual([expect.objectContaining({ contact_id: first.contactId, status: 'active', version: 1 })]);

    await customerSays(app, tenant, first.chat, 'join again');
    runs = await h.settledRuns(tenant, 2);
    expect(runs[1].actions[1]).toMatchObject({ type: 'start_sequence', status: 'succeeded', result: { enrolled: false, already_enrolled: true } });

    await customerSays(app, tenant, first.chat, 'please stop');
    runs = await h.settledRuns(tenant, 3);
    expect(runs[2].actions).toEqual([{ type: 'stop_sequences', status: 'succeeded', result: { exited: 1 } }]);
    expect(await h.read(tenant, `sequence_enrollments?sequence_id=eq.${sequenceId}&select=status,exit_reason`)).toEqual([
      { status: 'exited', exit_reason: 'manual' },
    ]);
  });

  it('should fail start_sequence for a contact who has not opted in, saying why', async () => {
    const tenant = await createTestTenant(app);
    const first = await customerMessage(app, tenant, 'Hello');
    const created = await app.inject({
      method: 'POST',
      url: '/functions/v1/campaigns/sequences',
      headers: tenant.session,
      payload: { name: 'Welcome', channel_account_id: first.channelAccountId, steps: [{ delay: {}, content: { text: 'Welcome' } }] },
    });
    const sequenceId = created.json().id as string;
    await app.inject({ method: 'POST', url: `/functions/v1/campaigns/sequences/${sequenceId}/activate`, headers: tenant.session });
    await runtime.db.systemQuery('UPDATE contacts SET opt_in_status = false WHERE id = $1', [first.contactId]);
    await h.createRule(tenant, {
      name: 'Join',
      event: 'message.received',
      conditions: { all: [] },
      actions: [{ type: 'start_sequence', sequence_id: sequenceId }],
    });
    await customerSays(app, tenant, first.chat, 'hi');
    const [run] = await h.settledRuns(tenant, 1);
    expect(run.actions).toEqual([{ type: 'start_sequence', status: 'failed', error: 'the contact has not opted in' }]);
    expect(await h.read(tenant, `sequence_enrollments?sequence_id=eq.${sequenceId}`)).toEqual([]);
  });
});
