import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { startTestApp } from '@engage/platform/testing';
import { messagingMigrations } from '../index';
import { MessagingModule } from '../messaging.module';

// The messaging context in an api process: no inbound worker runs, so a test drives the processor
// itself or reads what the receiver stored.
export const startInboundTestApp = () =>
  startTestApp([MessagingModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations] });

// A new organization with a chat-app channel account, and a poster of provider payloads to it.
export async function inboundChannel(app: NestFastifyApplication) {
  const tenant: TestTenant = await createTestTenant(app);
  const created = (
    await app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: tenant.key, payload: { kind: 'chat_app', name: 'Line' } })
  ).json();
  const id: string = created.channel_account.id;
  const token: string = created.inbound_token;
  const post = (payload: object, channelId = id, channelToken = token) =>
    app.inject({ method: 'POST', url: `/functions/v1/chat-lite-webhook/${channelId}`, headers: { 'x-channel-token': channelToken }, payload });
  return { tenant, organizationId: tenant.ctx.organizationId, id, token, post };
}
