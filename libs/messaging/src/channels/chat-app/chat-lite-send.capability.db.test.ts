import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChannelAdapters } from '../../outbound/channel-adapter.port';
import { CHANNEL_CAPABILITIES } from '../../domain/channel-capabilities';
import { CHANNEL_KINDS } from '../../domain/statuses';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../../testing/chat-lite-test-app';

// chat-lite-send asks the channel adapter port which kinds it may send on (the `directSend`
// capability); every other kind is refused with 400 `channel.cannot_send` before the provider is called.
let chat: ChatLiteTestApp;
let app: NestFastifyApplication;

beforeAll(async () => {
  chat = await startChatLiteTestApp();
  ({ app } = chat);
});
afterAll(() => chat.close());

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
    const t = await chat.newTenant();
    const to = chat.newNumber();
    const first = await chat.send(t.key, { to, message: 'makes the contact', organizationId: t.ctx.organizationId });
    expect(first.statusCode).toBe(200);
    const { contactId } = first.json();
    const insert = 'INSERT INTO channel_accounts (organization_id, kind, name) VALUES (app_org_id(), $1, $2) RETURNING id';
    const [channel] = await chat.rows<{ id: string }>(t, insert, [kind, kind]);
    const [conversation] = await chat.rows<{ id: string }>(
      t,
      'INSERT INTO conversations (organization_id, contact_id, channel_account_id) VALUES (app_org_id(), $1, $2) RETURNING id',
      [contactId, channel.id],
    );
    const before = chat.provider.calls.length;

    const direct = await chat.send(t.key, { to, message: 'on the wrong channel', organizationId: t.ctx.organizationId, conversationId: conversation.id });
    expect(direct.statusCode).toBe(400);
    expect(direct.json()).toMatchObject({ code: 'channel.cannot_send', error: expect.stringContaining(`conversations/${conversation.id}/reply`) });

    const cross = { originalChannelId: channel.id, originalChannelType: kind, responseChannelId: channel.id };
    const answered = await chat.send(t.key, { to, message: 'answer from it', organizationId: t.ctx.organizationId, crossChannelResponse: cross });
    expect(answered.statusCode).toBe(400);
    expect(answered.json()).toMatchObject({ code: 'channel.cannot_send', error: expect.stringContaining(`${kind} channel`) });

    expect(chat.provider.calls.length).toBe(before);
    expect(await chat.rows(t, 'SELECT count(*)::int AS n FROM messages WHERE channel_account_id = $1', [channel.id])).toEqual([{ n: 0 }]);
  });
});
