import { randomUUID } from 'node:crypto';
import { memberHeaders } from '@engage/identity/testing';
import { type ScheduledTestApp, startScheduledTestApp } from '../testing/scheduled-test-app';

let s: ScheduledTestApp;

beforeAll(async () => {
  s = await startScheduledTestApp();
});
afterAll(() => s.close());

const url = '/functions/v1/messaging/scheduled-messages';

describe('POST /functions/v1/messaging/conversations/<id>/scheduled-messages', () => {
  it('should store it scheduled for its author, with the defaults, and answer 201 with the record', async () => {
    const { t, conversationId } = await s.conversation();
    const sendAt = s.inSeconds(3600);
    const res = await s.schedule(t.session, conversationId, { text: 'We open at nine 🙂', send_at: sendAt });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(String),
      organization_id: t.ctx.organizationId,
      conversation_id: conversationId,
      status: 'scheduled',
      send_at: sendAt,
      text: 'We open at nine 🙂',
      media_urls: [],
      cancel_on_reply: true,
      created_by: t.ctx.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      sent_at: null,
      sent_message_ids: [],
      error: null,
    });
    // An agent may schedule too, with media and without the cancel on reply.
    const agent = await memberHeaders(s.app, t, 'AGENT');
    const byAgent = await s.schedule(agent, conversationId, {
      text: 'Here is the menu',
      send_at: s.inSeconds(60),
      media_urls: ['https://cdn.example.com/menu.jpg'],
      cancel_on_reply: false,
    });
    expect(byAgent.statusCode).toBe(201);
    expect(byAgent.json()).toMatchObject({ media_urls: ['https://cdn.example.com/menu.jpg'], cancel_on_reply: false });
  });

  it('should answer 400, never 500, for every malformed field, naming it, and store nothing', async () => {
    const { t, conversationId } = await s.conversation();
    const ok = { text: 'Hi', send_at: s.inSeconds(600) };
    const cases: [string, unknown][] = [
      ['text', { send_at: ok.send_at }],
      ['text', { ...ok, text: 123 }],
      ['text', { ...ok, text: null }],
      ['text', { ...ok, text: '   ' }],
      ['text', { ...ok, text: 'a'.repeat(4097) }],
      ['text', { ...ok, text: 'nul \u0000 inside' }],
      ['send_at', { text: 'Hi' }],
      ['send_at', { ...ok, send_at: 1767225600 }],
      ['send_at', { ...ok, send_at: 'tomorrow' }],
      ['send_at', { ...ok, send_at: '2030-02-30T10:00:00' }],
      ['send_at', { ...ok, send_at: new Date(Date.now() - 60_000).toISOString() }],
      ['send_at', { ...ok, send_at: s.inSeconds(31 * 24 * 3600) }],
      ['send_at', { ...ok, send_at: '2026-13-45T99:00:00Z' }],
      ['media_urls', { ...ok, media_urls: 'https://x.example/a.jpg' }],
      ['media_urls', { ...ok, media_urls: ['ftp://x.example/a.jpg'] }],
      ['media_urls', { ...ok, media_urls: [42] }],
      ['media_urls', { ...ok, media_urls: Array.from({ length: 11 }, (_, i) => `https://x.example/${i}.jpg`) }],
      ['media_urls', { ...ok, media_urls: [`https://x.example/${'a'.repeat(2100)}`] }],
      ['cancel_on_reply', { ...ok, cancel_on_reply: 'yes' }],
      ['surprise', { ...ok, surprise: 1 }],
    ];
    for (const [field, body] of cases) {
      const res = await s.schedule(t.session, conversationId, body as object);
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.body).toContain(field);
    }
    expect((await s.schedule(t.session, conversationId, '{"text": ' as unknown as object)).statusCode).toBe(400);
    // 4096 emoji are 4096 characters: accepted.
    expect((await s.schedule(t.session, conversationId, { ...ok, text: '🙂'.repeat(4096) })).statusCode).toBe(201);
    const [{ n }] = await s.rows<{ n: number }>(t, 'SELECT count(*)::int AS n FROM scheduled_messages');
    expect(n).toBe(1);
  });

  it("should answer 404 for an unknown conversation, another organization's or a malformed id", async () => {
    const mine = await s.conversation();
    const theirs = await s.conversation();
    const body = { text: 'Hi', send_at: s.inSeconds(600) };
    for (const id of [randomUUID(), theirs.conversationId, 'not-a-uuid']) {
      const res = await s.schedule(mine.t.session, id, body);
      expect({ id, status: res.statusCode }).toEqual({ id, status: 404 });
    }
  });

  it('should refuse an API key and members below AGENT with 403, and nobody without credentials', async () => {
    const { t, conversationId } = await s.conversation();
    const body = { text: 'Hi', send_at: s.inSeconds(600) };
    expect((await s.schedule(t.key, conversationId, body)).statusCode).toBe(403);
    expect((await s.schedule(await memberHeaders(s.app, t, 'PROJECT_MANAGER'), conversationId, body)).statusCode).toBe(403);
    expect((await s.schedule({}, conversationId, body)).statusCode).toBe(401);
  });
});

describe('listing, editing and cancelling', () => {
  it('should list by status and conversation, and keep other organizations out', async () => {
    const a = await s.conversation();
    const a2 = await s.conversation(a.t);
    const b = await s.conversation();
    const first = (await s.schedule(a.t.session, a.conversationId, { text: 'one', send_at: s.inSeconds(120) })).json();
    const second = (await s.schedule(a.t.session, a2.conversationId, { text: 'two', send_at: s.inSeconds(60) })).json();
    await s.schedule(b.t.session, b.conversationId, { text: 'theirs', send_at: s.inSeconds(60) });
    expect((await s.json(a.t.session, 'DELETE', `${url}/${first.id}`)).statusCode).toBe(200);

    const all = (await s.json(a.t.key, 'GET', url)).json();
    expect(all).toMatchObject({ total: 2, page: 1, limit: 50, total_pages: 1 });
    expect(all.scheduled_messages.map((m: { text: string }) => m.text)).toEqual(['two', 'one']);
    const scheduled = (await s.json(a.t.session, 'GET', `${url}?status=scheduled`)).json();
    expect(scheduled.scheduled_messages.map((m: { id: string }) => m.id)).toEqual([second.id]);
    const ofConversation = (await s.json(a.t.session, 'GET', `${url}?conversation_id=${a.conversationId}`)).json();
    expect(ofConversation.scheduled_messages).toEqual([expect.objectContaining({ id: first.id, status: 'cancelled' })]);
    for (const bad of ['status=later', 'conversation_id=nope', 'limit=0', 'limit=201', 'page=x', 'other=1']) {
      expect({ bad, status: (await s.json(a.t.session, 'GET', `${url}?${bad}`)).statusCode }).toEqual({ bad, status: 400 });
    }
    // Another organization's record is not found, for every verb.
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await s.json(b.t.session, method, `${url}/${second.id}`, method === 'PATCH' ? { text: 'mine now' } : undefined);
      expect({ method, status: res.statusCode }).toEqual({ method, status: 404 });
    }
    expect((await s.json(a.t.session, 'GET', `${url}/nope`)).statusCode).toBe(404);
    expect((await s.json(a.t.session, 'GET', `${url}/${second.id}`)).json()).toMatchObject({ id: second.id, text: 'two', status: 'scheduled' });
  });

  it('should edit text and send_at while scheduled, validating them, and answer 409 once it is cancelled', async () => {
    const { t, conversationId } = await s.conversation();
    const made = (await s.schedule(t.session, conversationId, { text: 'draft', send_at: s.inSeconds(600) })).json();
    const later = s.inSeconds(7200);
    const edited = await s.json(t.session, 'PATCH', `${url}/${made.id}`, { text: 'final', send_at: later });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ text: 'final', send_at: later, status: 'scheduled' });
    const bodies: unknown[] = [
      {},
      { text: '' },
      { text: 5 },
      { send_at: 'soon' },
      { send_at: s.inSeconds(-5) },
      { cancel_on_reply: false },
      { text: 'a\u0000' },
    ];
    for (const body of bodies)
      expect({ body, status: (await s.json(t.session, 'PATCH', `${url}/${made.id}`, body)).statusCode }).toEqual({ body, status: 400 });
    expect((await s.json(t.key, 'PATCH', `${url}/${made.id}`, { text: 'by key' })).statusCode).toBe(403);

    const cancelled = await s.json(t.session, 'DELETE', `${url}/${made.id}`);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({ status: 'cancelled' });
    // A repeated DELETE changes nothing and succeeds; an edit of a cancelled one is a conflict.
    expect((await s.json(t.session, 'DELETE', `${url}/${made.id}`)).json()).toMatchObject({ status: 'cancelled' });
    const conflict = await s.json(t.session, 'PATCH', `${url}/${made.id}`, { text: 'too late' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ code: 'scheduled_message.not_scheduled', error: `Scheduled message ${made.id} is cancelled, no longer scheduled` });
  });
});
