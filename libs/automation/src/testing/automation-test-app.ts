import { Global, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { callsManifest, callsMigrations } from '@engage/calls';
import { crmManifest, crmMigrations, CrmModule } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations } from '@engage/identity';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { InboundProcessor, messagingManifest, messagingMigrations, MessagingModule } from '@engage/messaging';
import type { EventContract } from '@engage/shared-kernel';
import { startTestApp } from '@engage/platform/testing';
import { automationManifest, automationMigrations, AutomationModule, RULE_WEBHOOK_JOB, RULE_WEBHOOK_TIMING, type WebhookTiming } from '../index';

// The api with identity, the CRM and messaging (the records rules are about), automation, and the
// data API over all their tables. No worker runs: a test drives inbound processing itself.
export async function startAutomationApp() {
  const manifests = [identityManifest, crmManifest, messagingManifest, automationManifest];
  return startTestApp([CrmModule, MessagingModule, AutomationModule, DataApiModule.forRoot(manifests.flatMap((m) => m.tables))], {
    role: 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...automationMigrations],
    events: manifests.flatMap((m) => m.publishes as readonly EventContract[]),
  });
}

let counter = 0;

// A customer's message on a new chat-app channel of the tenant, processed as the worker would:
// the ids of the message, its conversation and its contact, read back through /rest/v1.
// pacing: the account's pacing set before the message arrives (rules answer it at once).
export async function customerMessage(app: NestFastifyApplication, tenant: TestTenant, text: string, from?: string, pacing?: object) {
  const created = await app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: tenant.key,
    payload: { kind: 'chat_app', name: 'Line' },
  });
  if (created.statusCode !== 201) throw new Error(`channel: ${created.body}`);
  const { channel_account, inbound_token } = created.json() as { channel_account: { id: string }; inbound_token: string };
  if (pacing) {
    const patched = await app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/channel-accounts/${channel_account.id}`,
      headers: tenant.key,
      payload: { pacing },
    });
    if (patched.statusCode !== 200) throw new Error(`pacing: ${patched.body}`);
  }
  const phone = from ?? `2010${String(10_000_000 + ++counter * 7919).slice(-8)}`;
  const chat: CustomerChat = { channelAccountId: channel_account.id, inboundToken: inbound_token, phone };
  return { ...(await customerSays(app, tenant, chat, text)), chat };
}

// Where a customer writes from: a chat-app channel account, its inbound token, the customer's phone.
export interface CustomerChat {
  channelAccountId: string;
  inboundToken: string;
  phone: string;
}

// The customer's next message on their chat, processed as the worker would.
export async function customerSays(app: NestFastifyApplication, tenant: TestTenant, chat: CustomerChat, text: string) {
  const externalId = `automation.${Date.now()}.${++counter}`;
  const posted = await app.inject({
    method: 'POST',
    url: `/functions/v1/chat-lite-webhook/${chat.channelAccountId}`,
    headers: { 'x-channel-token': chat.inboundToken },
    payload: { type: 'message', id: externalId, from: chat.phone, text },
  });
  if (posted.statusCode !== 200) throw new Error(`webhook: ${posted.body}`);
  while ((await app.get(InboundProcessor).processDue()) > 0);
  const read = await app.inject({
    method: 'GET',
    url: `/rest/v1/messages?select=id,conversation_id,contact_id&external_id=eq.${externalId}`,
    headers: tenant.session,
  });
  const [message] = read.json() as { id: string; conversation_id: string; contact_id: string }[];
  if (!message) throw new Error(`message not stored: ${read.body}`);
  return { messageId: message.id, conversationId: message.conversation_id, contactId: message.contact_id, channelAccountId: chat.channelAccountId };
}

export { createTestTenant, memberHeaders, type TestTenant };

// Shorter pauses between a rule webhook's attempts, so a failing receiver is given up in a moment.
export const QUICK_WEBHOOK_TIMING: WebhookTiming = { attemptTimeoutMs: 5_000, retryDelaysMs: [50, 100], budgetMs: 60_000 };

@Global()
@Module({ providers: [{ provide: RULE_WEBHOOK_TIMING, useValue: QUICK_WEBHOOK_TIMING }], exports: [RULE_WEBHOOK_TIMING] })
class QuickWebhookTiming {}

// The api and the worker in one process (role all): events relayed to the rule engine, rule
// webhooks allowed to an HTTPS receiver on 127.0.0.1 whose certificate is trusted. Calls' table and
// events are there (a test emits call.analyzed itself), not its module.
export async function startRuleEngineApp(certPath: string) {
  const manifests = [identityManifest, crmManifest, messagingManifest, callsManifest, automationManifest];
  return startTestApp([CrmModule, MessagingModule, AutomationModule, QuickWebhookTiming, DataApiModule.forRoot(manifests.flatMap((m) => m.tables))], {
    role: 'all',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...callsMigrations, ...automationMigrations],
    events: manifests.flatMap((m) => m.publishes as readonly EventContract[]),
    // The rules' webhook deliveries are jobs; the schedules (timers, purges) are driven by tests.
    jobs: { jobs: [RULE_WEBHOOK_JOB] },
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: certPath },
  });
}
