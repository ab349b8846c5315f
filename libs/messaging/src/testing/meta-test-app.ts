import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startTestApp } from '@engage/platform/testing';
import { InboundProcessor } from '../inbound/inbound-processor';
import { messagingMigrations } from '../index';
import { MessagingModule } from '../messaging.module';
import { metaSender } from './meta-peers';
import { tenantQueries } from './tenant-queries';

let next = 100_000;
// A page or Instagram account id no other test of the run uses.
export const newMetaId = () => String(Date.now()) + String(++next);

// The messaging context in an api process listening on 127.0.0.1 with the Meta app configured, a
// signed webhook sender to it, and the helpers the Meta tests share.
export async function startMetaTestApp(options: { secret: string; verifyToken?: string; graphUrl?: string }) {
  const env: Record<string, string> = { META_APP_SECRET: options.secret, META_VERIFY_TOKEN: options.verifyToken ?? 'verify' };
  if (options.graphUrl) env.META_GRAPH_URL = options.graphUrl;
  const started = await startTestApp([MessagingModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations], env });
  const { app } = started;
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return {
    ...started,
    ...tenantQueries(started.runtime),
    base,
    send: metaSender(base, options.secret),
    // Runs the inbound worker's passes until nothing is due.
    drain: async () => {
      while ((await app.get(InboundProcessor).processDue()) > 0);
    },
    connectAccount: (kind: 'messenger' | 'instagram' = 'messenger', token = `EAAG${'x'.repeat(40)}`) => connectMetaAccount(app, kind, token),
  };
}

export type MetaTestApp = Awaited<ReturnType<typeof startMetaTestApp>>;

// A new organization with a Messenger page (or Instagram account) connected.
export async function connectMetaAccount(app: NestFastifyApplication, kind: 'messenger' | 'instagram', token: string) {
  const t: TestTenant = await createTestTenant(app);
  const accountId = newMetaId();
  const field = kind === 'messenger' ? 'page_id' : 'instagram_account_id';
  const res = await app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: t.key,
    payload: { kind, name: 'Page', [field]: accountId, page_access_token: token },
  });
  if (res.statusCode !== 201) throw new Error(`${kind} account not created: ${res.statusCode} ${res.body}`);
  return { t, accountId, channelId: res.json().channel_account.id as string };
}
