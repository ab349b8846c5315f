import { crmMigrations } from '@engage/crm';
import { identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startTestApp } from '@engage/platform/testing';
import { messagingMigrations } from '../index';
import { MessagingModule } from '../messaging.module';
import { RecordingProvider } from './recording-provider';
import { tenantQueries } from './tenant-queries';

// The messaging context in an api process whose messaging provider is a RecordingProvider on
// 127.0.0.1, sending without the gap between sends (env adds or overrides settings), with the
// helpers the chat-lite send tests share.
export async function startChatLiteTestApp(env: Record<string, string> = {}) {
  const provider = new RecordingProvider();
  await provider.start();
  const started = await startTestApp([MessagingModule], {
    role: 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
    env: { NOTIFY_URL: provider.url, SEND_GAP_MIN_MS: '0', SEND_GAP_MAX_MS: '0', ...env },
  });
  const { app } = started;
  let counter = 0;
  return {
    ...started,
    ...tenantQueries(started.runtime),
    provider,
    // A receiver's mobile number no other test of the file uses.
    newNumber: () => `2011${String(10_000_000 + ++counter * 7919).slice(-8)}`,
    // A new organization with the provider's API key set, so chat-lite-send may send for it.
    newTenant: async (providerKey = 'provider-key'): Promise<TestTenant> => {
      const tenant = await createTestTenant(app);
      await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', providerKey);
      return tenant;
    },
    send: (headers: Record<string, string>, payload: unknown) =>
      app.inject({
        method: 'POST',
        url: '/functions/v1/chat-lite-send',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(payload),
      }),
    close: async () => {
      await started.close();
      await provider.stop();
    },
  };
}

export type ChatLiteTestApp = Awaited<ReturnType<typeof startChatLiteTestApp>>;
