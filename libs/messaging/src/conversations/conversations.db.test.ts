import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';

let chat: ChatLiteTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;
const newNumber = () => chat.newNumber();

beforeAll(async () => {
  chat = await startChatLiteTestApp();
  ({ app, runtime } = chat);
});
afterAll(() => chat.close());

const base = '/functions/v1/messaging';
const call = (method: 'GET' | 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload?: unknown) =>
  app.inject({ method, url: `${base}${url}`, headers, payload: payload as object });
const rows = <T = Record<string, unknown>>(ctx: RequestContext, sql: string, params: unknown[] = []) =>
  runtime.db.inTenant(ctx, (tx) => tx.query<T>(sql, params));
const events = (ctx: RequestContext, type: string) =>
  runtime.db.asSystem((tx) =>
    tx.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM outbox WHERE organization_id = $1 AND type = $2 ORDER BY seq`, [
      ctx.organizationId,
      type,
    ]),
  );

// A tenant with a provider key and `n` conversations started by chat-lite-send.
const tenantWith = async (n: number): Promise<{ t: TestTenant; ids: string[] }> => {
  const t = await chat.newTenant('k-123');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: newNumber(), message: `hello ${i}`, organizationId: t.ctx.organizationId },
    });
    ids.push(res.json().conversationId);
  }
  return { t, ids };
};

describe('agent inbox /functions/v1/messaging', () => {
  it('should list conversations newest first, paginated and filtered by status and assignee', async () => {
    const { t, ids } = await tenantWith(5);
    const all = (await call('GET', '/conversations?limit=2', t.session)).json();
    expect(all).toMatchObject({ total: 5, page: 1, limit: 2, total_pages: 3 });
    expect(all.conversations.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    expect((await call('GET', '/conversations?page=3&limit=2', t.session)).json().conversations.map((c: { id: string }) => c.id)).toEqual([ids[0]]);

    expect((await call('PATCH', `/conversations/${ids[0]}/status`, t.session, { status: 'RESOLVED' })).statusCode).toBe(200);
    expect((await call('PATCH', `/conversations/${ids[1]}/assignee`, t.session, { assignee_id: t.ctx.userId })).statusCode).toBe(200);
    expect((await call('GET', '/conversations?status=RESOLVED', t.key)).json().conversations.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect((await call('GET', `/conversations?assignee_id=${t.ctx.userId}`, t.key)).json().conversations.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    expect((await call('GET', '/conversations?unassigned=true', t.key)).json().total).toBe(4);

    // resolved_at (the reporting views read it) follows the status: set on resolving, cleared on reopening.
    const resolvedAt = async (id: string) =>
      (await rows<{ resolved_at: Date | null }>(t.ctx, 'SELECT resolved_at FROM messaging_conversation_facts WHERE id = $1', [id]))[0].resolved_at;
    expect(await resolvedAt(ids[0])).toBeInstanceOf(Date);
    expect(await resolvedAt(ids[1])).toBeNull();
    await call('PATCH', `/conversations/${ids[0]}/status`, t.session, { status: 'OPEN' });
    expect(await resolvedAt(ids[0])).toBeNull();
    await call('PATCH', `/conversations/${ids[0]}/status`, t.session, { status: 'RESOLVED' });

    for (const bad of ['?status=CLOSED', '?assignee_id=nope', '?limit=500', '?page=0', '?limit=abc', '?colour=red']) {
      expect((await call('GET', `/conversations${bad}`, t.key)).statusCode).toBe(400);
    }
    expect((await call('GET', '/conversations', {})).statusCode).toBe(401);
  });

  it('should read one conversation with its messages, reply through the send path, and keep unread counts', async () => {
    const { t, ids } = await tenantWith(1);
    const [conversation] = await rows<{ contact_id: string }>(t.ctx, 'SELECT contact_id FROM conversations');
    await rows(t.ctx, 'UPDATE conversations SET unread_count = 3');
    expect((await call('GET', '/unread-counts', t.session)).json()).toEqual({ total: 3, conversations: 1, by_status: { OPEN: 3 } });

    const reply = await call('POST', `/conversations/${ids[0]}/reply`, t.session, {
      message: 'On its way',
      media_urls: ['https://cdn.example.com/receipt.png'],
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toMatchObject({ success: true, conversationId: ids[0], contactId: conversation.contact_id });
    const last = chat.provider.calls[chat.provider.calls.length - 1];
    expect(last.body.UOWCHAT).toMatchObject({ message: 'On its way', imageUrl: 'https://cdn.example.com/receipt.png', random_string: 0 });
    expect(last.headers.appapikey).toBe('k-123');

    const read = (await call('GET', `/conversations/${ids[0]}`, t.session)).json();
    expect(read).toMatchObject({ id: ids[0], status: 'OPEN', unread_count: 3 });
    // Who wrote each: the first through chat-lite-send (the API), the reply an agent in the inbox.
    type Read = { content: string; direction: string; origin: string; origin_id: string | null };
    expect(read.messages.map((m: Read) => [m.direction, m.content, m.origin, m.origin_id])).toEqual([
      ['OUTBOUND', 'hello 0', 'api', null],
      ['OUTBOUND', 'On its way', 'agent', null],
    ]);
    expect((await call('GET', `/conversations/${ids[0]}?limit=1`, t.session)).json().messages.map((m: { content: string }) => m.content)).toEqual([
      'On its way',
    ]);
    expect((await call('POST', `/conversations/${ids[0]}/read`, t.session)).json()).toMatchObject({ unread_count: 0 });
    expect((await call('GET', '/unread-counts', t.session)).json()).toMatchObject({ total: 0, conversations: 0 });

    for (const bad of [{}, { message: '' }, { message: 5 }, { message: 'x', media_urls: ['ftp://a'] }, { message: 'x'.repeat(4097) }]) {
      expect((await call('POST', `/conversations/${ids[0]}/reply`, t.session, bad)).statusCode).toBe(400);
    }
    expect((await call('GET', '/conversations/not-a-uuid', t.session)).statusCode).toBe(400);
  });

  it('should change status (SNOOZED needs a future until) and assignment, emitting their events', async () => {
    const { t, ids } = await tenantWith(1);
    const id = ids[0];
    expect((await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'SNOOZED' })).statusCode).toBe(400);
    expect((await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'SNOOZED', snoozed_until: '2001-01-01T00:00:00Z' })).statusCode).toBe(400);
    expect((await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'DONE' })).statusCode).toBe(400);
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const snoozed = await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'SNOOZED', snoozed_until: until });
    expect(snoozed.json()).toMatchObject({ status: 'SNOOZED', snoozed_until: until });
    expect((await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'PENDING' })).json()).toMatchObject({
      status: 'PENDING',
      snoozed_until: null,
    });
    const changes = await events(t.ctx, 'conversation.status.changed');
    expect(changes.map((e) => [e.payload.from_status, e.payload.to_status, e.payload.actor_id])).toEqual([
      ['OPEN', 'SNOOZED', t.ctx.userId],
      ['SNOOZED', 'PENDING', t.ctx.userId],
    ]);

    expect((await call('PATCH', `/conversations/${id}/assignee`, t.session, { assignee_id: t.ctx.userId })).json()).toMatchObject({
      assignee_id: t.ctx.userId,
    });
    expect((await call('PATCH', `/conversations/${id}/assignee`, t.session, { assignee_id: null })).json()).toMatchObject({ assignee_id: null });
    expect((await call('PATCH', `/conversations/${id}/assignee`, t.session, { assignee_id: 'x' })).statusCode).toBe(400);
    // A user of another organization is not a member here.
    const other = await createTestTenant(app);
    expect((await call('PATCH', `/conversations/${id}/assignee`, t.session, { assignee_id: other.ctx.userId })).statusCode).toBe(400);
    expect((await events(t.ctx, 'conversation.assigned')).map((e) => e.payload.previous_assignee_id)).toEqual([null, t.ctx.userId]);

    // Reopening a resolved conversation while another is open for the same contact and channel: 409.
    await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'RESOLVED' });
    const [c] = await rows<{ contact_id: string; phones: string[] }>(
      t.ctx,
      'SELECT c.contact_id, ct.phones FROM conversations c JOIN contacts ct ON ct.id = c.contact_id',
    );
    const again = await app.inject({
      method: 'POST',
      url: '/functions/v1/chat-lite-send',
      headers: t.key,
      payload: { to: c.phones[0], message: 'new thread', organizationId: t.ctx.organizationId },
    });
    expect(again.json().conversationId).not.toBe(id);
    expect((await call('PATCH', `/conversations/${id}/status`, t.session, { status: 'OPEN' })).statusCode).toBe(409);
  });

  it("should never show or change another organization's conversations or channel accounts", async () => {
    const a = await tenantWith(1);
    const b = await tenantWith(1);
    const theirs = b.ids[0];
    expect((await call('GET', `/conversations/${theirs}`, a.t.session)).statusCode).toBe(404);
    expect((await call('PATCH', `/conversations/${theirs}/status`, a.t.session, { status: 'RESOLVED' })).statusCode).toBe(404);
    expect((await call('PATCH', `/conversations/${theirs}/assignee`, a.t.key, { assignee_id: null })).statusCode).toBe(404);
    expect((await call('POST', `/conversations/${theirs}/reply`, a.t.key, { message: 'hi' })).statusCode).toBe(404);
    expect((await call('POST', `/conversations/${theirs}/read`, a.t.key)).statusCode).toBe(404);
    expect((await call('GET', '/conversations', a.t.key)).json().conversations.map((c: { id: string }) => c.id)).toEqual(a.ids);
    const channels = (await call('GET', '/channel-accounts', a.t.key)).json();
    expect(channels).toHaveLength(1);
    expect(channels[0]).not.toHaveProperty('inbound_token_hash');
    // Every messaging table is fenced by row-level security.
    for (const table of ['channel_accounts', 'conversations', 'messages', 'inbound_events']) {
      const seen = await rows<{ organization_id: string }>(a.t.ctx, `SELECT organization_id FROM ${table}`);
      expect(seen.every((r) => r.organization_id === a.t.ctx.organizationId)).toBe(true);
    }
    await expect(
      rows(
        a.t.ctx,
        `INSERT INTO conversations (organization_id, contact_id, channel_account_id) SELECT $1, contact_id, channel_account_id FROM conversations LIMIT 1`,
        [b.t.ctx.organizationId],
      ),
    ).rejects.toThrow(/row-level security/);
  });

  it("should create channel accounts only for owners, admins and API keys, with a valid kind and name, storing only the token's hash", async () => {
    const { t } = await tenantWith(0);
    expect((await call('POST', '/channel-accounts', t.session, { kind: 'fax', name: 'x' })).statusCode).toBe(400);
    expect((await call('POST', '/channel-accounts', t.session, { kind: 'instagram' })).statusCode).toBe(400);
    expect((await call('POST', '/channel-accounts', t.session, { kind: 'instagram', name: 'x'.repeat(201) })).statusCode).toBe(400);
    expect((await call('POST', '/channel-accounts', {}, { kind: 'email', name: 'Mail' })).statusCode).toBe(401);
    // An AGENT works the inbox but does not manage channels.
    const email = `agent.${t.ctx.organizationId}@example.com`;
    await app.get(OrganizationService).createUser({ organizationId: t.ctx.organizationId, email, password: 'agent password 1', role: 'AGENT' });
    const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password: 'agent password 1' } });
    const agent = { authorization: `Bearer ${login.json().access_token}` };
    expect((await call('GET', '/conversations', agent)).statusCode).toBe(200);
    expect((await call('POST', '/channel-accounts', agent, { kind: 'email', name: 'Mail' })).statusCode).toBe(403);
    const created = await call('POST', '/channel-accounts', t.session, { kind: 'chat_app', name: 'Line' });
    expect(created.statusCode).toBe(201);
    expect(created.json().inbound_token).toMatch(/^chs_/);
    const [stored] = await rows<{ inbound_token_hash: Buffer }>(t.ctx, 'SELECT inbound_token_hash FROM channel_accounts');
    expect(stored.inbound_token_hash.toString('utf8')).not.toContain(created.json().inbound_token);
  });
});
