import { LoopbackProviders } from '@engage/calls/testing';
import { crmManifest, crmMigrations } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { InboundProcessor, messagingManifest, messagingMigrations } from '@engage/messaging';
import { GraphApiFake, metaBody, metaSender } from '@engage/messaging/testing';
import type { EventContract } from '@engage/shared-kernel';
import { startTestApp } from '@engage/platform/testing';
import { reengagementManifest, reengagementMigrations, ReengagementModule } from '../index';

const SECRET = 'meta-app-secret-for-reengagement';
export const PAGE_TOKEN = `EAAG${'r'.repeat(40)}`;
export const PLATFORM_AI_KEY = 'platform-ai-key-0123456789';

// The composed pieces re-engagement needs, in one process that also relays events (role all): the
// platform's AI and a customer's AI as loopback OpenAI-compatible peers, Meta's Graph API on
// 127.0.0.1, and the data API over the tables.
export async function startReengagementApp() {
  const defaultAi = await new LoopbackProviders().start();
  const customerAi = await new LoopbackProviders().start();
  const graph = new GraphApiFake();
  await graph.start();
  const manifests = [identityManifest, crmManifest, messagingManifest, reengagementManifest];
  const started = await startTestApp([ReengagementModule, DataApiModule.forRoot(manifests.flatMap((m) => m.tables))], {
    role: 'all',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...reengagementMigrations],
    events: manifests.flatMap((m) => m.publishes as readonly EventContract[]),
    env: {
      META_APP_SECRET: SECRET,
      META_VERIFY_TOKEN: 'verify-token-r',
      META_GRAPH_URL: graph.url,
      AI_BASE_URL: defaultAi.baseUrl,
      AI_API_KEY: PLATFORM_AI_KEY,
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'debug',
    },
  });
  await started.app.listen(0, '127.0.0.1');
  const base = (await started.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  const send = metaSender(base, SECRET);
  return {
    ...started,
    defaultAi,
    customerAi,
    graph,
    send,
    async stop() {
      await started.close();
      await Promise.all([defaultAi.stop(), customerAi.stop(), graph.stop()]);
    },
  };
}

export type ReengagementApp = Awaited<ReturnType<typeof startReengagementApp>>;

let next = 700_000;
export const newId = () => String(Date.now()) + String(++next);

// A tenant whose Messenger page got one message from a customer: the conversation's id.
export async function messengerConversation(r: ReengagementApp, t?: TestTenant, text = 'Hi, is the blue one in stock?') {
  const tenant = t ?? (await createTestTenant(r.app));
  const pageId = newId();
  const created = await r.app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: tenant.key,
    payload: { kind: 'messenger', name: 'Shop', page_id: pageId, page_access_token: PAGE_TOKEN },
  });
  if (created.statusCode !== 201) throw new Error(`channel: ${created.body}`);
  const psid = `psid-${newId()}`;
  await customerWrites(r, pageId, psid, text);
  const [row] = await r.runtime.db.inTenant(tenant.ctx, (tx) =>
    tx.query<{ id: string; contact_id: string }>(`SELECT id, contact_id FROM conversations WHERE channel_account_id = $1`, [created.json().channel_account.id]),
  );
  return { t: tenant, pageId, psid, conversationId: row.id, contactId: row.contact_id };
}

export async function customerWrites(r: ReengagementApp, pageId: string, psid: string, text: string) {
  const event = { sender: { id: psid }, recipient: { id: pageId }, timestamp: Date.now(), message: { mid: `m_${newId()}`, text } };
  const answer = await r.send(metaBody('page', pageId, [event]));
  if (answer.status !== 200) throw new Error(`webhook: ${JSON.stringify(answer.body)}`);
  while ((await r.app.get(InboundProcessor).processDue()) > 0);
  // Its events relayed and consumed, so a test that moves the clock afterwards starts from a settled state.
  await waitFor(
    () => r.runtime.db.asSystem((tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`)),
    ([row]) => row.n === 0,
  );
}

// Where the customer's last message is put in time (the scheduler reads it through messaging's view).
export const customerLastWroteAt = (r: ReengagementApp, t: TestTenant, conversationId: string, at: Date) =>
  r.runtime.db.inTenant(t.ctx, (tx) =>
    tx.query(`UPDATE conversations SET last_customer_message_at = $2, window_closes_at = $2::timestamptz + interval '24 hours' WHERE id = $1`, [
      conversationId,
      at,
    ]),
  );

export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
