import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { ChannelAdapters } from '../application/channel-adapter.port';
import { CHANNEL_CAPABILITIES } from '../domain/channel-capabilities';
import { CHANNEL_KINDS } from '../domain/statuses';
import { messagingMigrations } from '../index';
import { MessagingModule } from '../messaging.module';
import { RecordingProvider } from '../testing/recording-provider';

// chat-lite-send asks the channel adapter port which kinds it may send on (the `directSend`
// capability); every other kind is refused with 400 `channel.cannot_send` before the provider is called.
const provider = new RecordingProvider();
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;
let counter = 0;
const newNumber = () => `2011${String(10_000_000 + ++counter * 7919).slice(-8)}`;

beforeAll(async () => {
  await provider.start();
  ({ app, runtime, close } = await startTestApp([MessagingModule], {
    role: 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations],
    env: { NOTIFY_URL: provider.url, SEND_GAP_MIN_MS: '0', SEND_GAP_MAX_MS: '0' },
  }));
});
afterAll(async () => {
  await close();
  await provider.stop();
});

const newTenant = async (): Promise<TestTenant> => {
  const tenant = await createTestTenant(app);
  await app.get(OrganizationService).setSetting(tenant.ctx.organizationId, 'appgain_api_key', `key-${tenant.ctx.organizationId.slice(0, 8)}`);
  return tenant;
};
const send = (headers: Record<string, string>, payload: unknown) =>
  app.inject({
    method: 'POST', url: '/functions/v1/chat-lite-send', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload),
  });
const rows = <T = Record<string, unknown>>(ctx: RequestContext, sql: string, params: unknown[] = []) =>
  runtime.db.inTenant(ctx, (tx) => tx.query<T>(sql, params));

const refusedKinds = CHANNEL_KINDS.filter((kind) => !CHANNEL_CAPABILITIES[kind].directSend);

describe('chat-lite-send and the channel adapter port', () => {
  it('should declare chat_app as the only kind chat-lite-send sends on, and the port should answer by capability', () => {
    const adapters = app.get(ChannelAdapters);
    expect(CHANNEL_KINDS.filter((kind) => adapters.forDirectSend(kind) !== null)).toEqual(['chat_app']);
    expect(adapters.forDirectSend('chat_app')?.kind).toBe('chat_app');
    expect(refusedKinds.sort()).toEqual(['email', 'instagram', 'messenger', 'sms']);
    expect(adapters.forDirectSend('fax')).toBeNull();
  });

  it.each(refusedKinds)('should refuse a %s conversation or response channel with 400 channel.cannot_send before any provider call', async (kind) => {
    const t = await newTenant();
    const to = newNumber();
    const first = await send(t.key, { to, message: 'makes the contact', organizationId: t.ctx.organizationId });
    expect(first.statusCode).toBe(200);
    const { contactId } = first.json();
    const insert = 'INSERT INTO channel_accounts (organization_id, kind, name) VALUES (app_org_id(), $1, $2) RETURNING id';
    const [channel] = await rows<{ id: string }>(t.ctx, insert, [kind, kind]);
    const [conversation] = await rows<{ id: string }>(t.ctx,
      'INSERT INTO conversations (organization_id, contact_id, channel_account_id) VALUES (app_org_id(), $1, $2) RETURNING id', [contactId, channel.id]);
    const before = provider.calls.length;

    const direct = await send(t.key, { to, message: 'on the wrong channel', organizationId: t.ctx.organizationId, conversationId: conversation.id });
    expect(direct.statusCode).toBe(400);
    expect(direct.json()).toMatchObject({ code: 'channel.cannot_send', error: expect.stringContaining(`conversations/${conversation.id}/reply`) });

    const cross = { originalChannelId: channel.id, originalChannelType: kind, responseChannelId: channel.id };
    const answered = await send(t.key, { to, message: 'answer from it', organizationId: t.ctx.organizationId, crossChannelResponse: cross });
    expect(answered.statusCode).toBe(400);
    expect(answered.json()).toMatchObject({ code: 'channel.cannot_send', error: expect.stringContaining(`${kind} channel`) });

    expect(provider.calls.length).toBe(before);
    expect(await rows(t.ctx, 'SELECT count(*)::int AS n FROM messages WHERE channel_account_id = $1', [channel.id])).toEqual([{ n: 0 }]);
  });
});
