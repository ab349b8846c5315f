import { CommandBus } from '@nestjs/cqrs';
import type { RequestContext } from '@engage/shared-kernel';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';
import { AssignConversation, SetConversationStatus } from './conversation-commands';

let chat: ChatLiteTestApp;

beforeAll(async () => {
  chat = await startChatLiteTestApp();
});
afterAll(() => chat.close());

const cause = { rule_id: '5f0e7a52-3b8e-4a39-9d3c-0c5f3a1e9b01', run_id: '0b6a4a35-8f4e-4f5e-8e31-8a4d1f3e2c02', depth: 2 };
const system = (ctx: RequestContext): RequestContext => ({ ...ctx, userId: null, role: 'SYSTEM' });
const eventsOf = (ctx: RequestContext) =>
  chat.runtime.db.asSystem((tx) =>
    tx.query<{ type: string; cause: unknown; payload: Record<string, unknown> }>(
      `SELECT type, cause, payload FROM outbox WHERE organization_id = $1 AND type LIKE 'conversation.%' ORDER BY seq`,
      [ctx.organizationId],
    ),
  );

describe('messaging’s conversation commands on the command bus', () => {
  it('should set a conversation’s status and assignee as the inbox does, its events carrying the cause, and do nothing when already so', async () => {
    const t = await chat.newTenant('k-123');
    const sent = await chat.app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: chat.newNumber(), message: 'hello', organizationId: t.ctx.organizationId },
    });
    const conversationId = sent.json().conversationId as string;
    const bus = chat.app.get(CommandBus);

    expect(await bus.execute(new SetConversationStatus(system(t.ctx), conversationId, 'PENDING', cause))).toMatchObject({ status: 'PENDING' });
    expect(await bus.execute(new AssignConversation(system(t.ctx), conversationId, t.ctx.userId, cause))).toMatchObject({ assignee_id: t.ctx.userId });
    await bus.execute(new SetConversationStatus(system(t.ctx), conversationId, 'PENDING', cause));
    await bus.execute(new AssignConversation(system(t.ctx), conversationId, t.ctx.userId, cause));

    const events = (await eventsOf(t.ctx)).filter((event) => event.type !== 'conversation.created');
    expect(events.map((event) => [event.type, event.cause])).toEqual([
      ['conversation.status.changed', cause],
      ['conversation.assigned', cause],
    ]);
    expect(events[0].payload).toMatchObject({ from_status: 'OPEN', to_status: 'PENDING', actor_id: null });
  });

  it('should refuse an assignee who is not a member, and a conversation of another organization', async () => {
    const [t, other] = [await chat.newTenant('k-1'), await chat.newTenant('k-2')];
    const sent = await chat.app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: chat.newNumber(), message: 'hi', organizationId: t.ctx.organizationId },
    });
    const conversationId = sent.json().conversationId as string;
    const bus = chat.app.get(CommandBus);
    await expect(bus.execute(new AssignConversation(system(t.ctx), conversationId, other.ctx.userId))).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(bus.execute(new SetConversationStatus(system(other.ctx), conversationId, 'RESOLVED'))).rejects.toMatchObject({
      code: 'conversation.not_found',
    });
  });
});
