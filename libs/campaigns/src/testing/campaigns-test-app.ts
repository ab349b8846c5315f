import { ContactService, crmManifest, crmMigrations, CrmModule } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { InboundProcessor, messagingManifest, messagingMigrations, MessagingModule } from '@engage/messaging';
import { RecordingProvider, UNPACED_PACING } from '@engage/messaging/testing';
import type { EventContract } from '@engage/shared-kernel';
import { startTestApp } from '@engage/platform/testing';
import { campaignsManifest, campaignsMigrations, CampaignsModule } from '../index';

// Identity, the CRM, messaging (its chat-app provider a RecordingProvider on 127.0.0.1) and
// campaigns, with the data API over their tables, in one process that relays and consumes events
// (role all). No job runner: a test drives the campaigns' pass and the queue's worker itself, or
// (role api) leaves the relay, the consumers and the jobs to a worker process on the same database.
export async function startCampaignsApp(options: { role?: 'all' | 'api'; env?: Record<string, string> } = {}) {
  const provider = new RecordingProvider();
  await provider.start();
  const manifests = [identityManifest, crmManifest, messagingManifest, campaignsManifest];
  const started = await startTestApp([CrmModule, MessagingModule, CampaignsModule, DataApiModule.forRoot(manifests.flatMap((m) => m.tables))], {
    role: options.role ?? 'all',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...campaignsMigrations],
    events: manifests.flatMap((m) => m.publishes as readonly EventContract[]),
    env: { NOTIFY_URL: provider.url, SEND_GAP_MIN_MS: '0', SEND_GAP_MAX_MS: '0', ...options.env },
  });
  const { app, runtime } = started;
  let counter = 0;
  const chatLine = async (tenant: TestTenant, pacing: object = UNPACED_PACING): Promise<{ id: string; token: string }> => {
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/messaging/channel-accounts',
      headers: tenant.key,
      payload: { kind: 'chat_app', name: 'Line' },
    });
    if (res.statusCode !== 201) throw new Error(`channel: ${res.body}`);
    const id = res.json().channel_account.id as string;
    await runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [id, JSON.stringify(pacing)]);
    return { id, token: res.json().inbound_token as string };
  };
  return {
    ...started,
    provider,
    newPhone: () => `+2012${String(10_000_000 + ++counter * 7919).slice(-8)}`,
    // An organization whose chat-app provider key is set.
    newTenant: async (): Promise<TestTenant> => {
      const tenant = await createTestTenant(app);
      await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', 'provider-key');
      return tenant;
    },
    // A chat-app account of the tenant, sending without pacing unless told otherwise.
    chatAccount: async (tenant: TestTenant, pacing: object = UNPACED_PACING): Promise<string> => (await chatLine(tenant, pacing)).id,
    // The same, with the token of its inbound webhook.
    chatLine,
    // A customer's message to a chat-app line through its public inbound webhook, processed as
    // messaging's inbound worker would.
    customerWrites: async (line: { id: string; token: string }, from: string, text: string, replyTo: string | null = null) => {
      const res = await app.inject({
        method: 'POST',
        url: `/functions/v1/chat-lite-webhook/${line.id}`,
        headers: { 'x-channel-token': line.token },
        payload: { type: 'message', id: `in-${++counter}-${Date.now()}`, from: from.replace(/^\+/, ''), text, ...(replyTo ? { reply_to: replyTo } : {}) },
      });
      if (res.statusCode !== 200) throw new Error(`inbound: ${res.statusCode} ${res.body}`);
      while ((await app.get(InboundProcessor).processDue()) > 0);
    },
    contact: (tenant: TestTenant, fields: Record<string, unknown>) => app.get(ContactService).create(tenant.ctx, { first_name: 'Ola', ...fields }),
    close: async () => {
      await started.close();
      await provider.stop();
    },
  };
}

export type CampaignsApp = Awaited<ReturnType<typeof startCampaignsApp>>;

export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
