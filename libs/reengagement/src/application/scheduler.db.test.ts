import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { createPool, Database } from '@engage/platform';
import type { Drafter } from './drafter';
import type { NudgeSender } from './nudge-sender';
import { ReengagementScheduler } from './scheduler';
import { captureOutput, customerLastWroteAt, customerWrites, messengerConversation, type ReengagementApp, startReengagementApp, waitFor } from '../testing';

const H = 3_600_000;
const S = 1000;
let r: ReengagementApp;
let scheduler: ReengagementScheduler;

let captured: string[] = [];

beforeAll(async () => {
  captured = captureOutput();
  r = await startReengagementApp();
  scheduler = r.app.get(ReengagementScheduler);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await r.stop();
});

const configure = async (t: TestTenant, settings: object) => {
  const res = await r.app.inject({ method: 'PUT', url: '/functions/v1/reengagement/settings', headers: t.session, payload: { enabled: true, ...settings } });
  expect(res.statusCode).toBe(200);
};
const nudgesOf = (t: TestTenant, conversationId: string) =>
  r.runtime.db.inTenant(t.ctx, (tx) =>
    tx.query<Record<string, unknown> & { id: string; status: string }>(`SELECT * FROM reengagement_nudges WHERE conversation_id = $1 ORDER BY created_at`, [
      conversationId,
    ]),
  );
const graphTexts = (pageId: string) =>
  r.graph.calls.filter((c) => c.method === 'POST' && c.path.includes(pageId)).map((c) => (c.body.message as { text?: string }).text);
const drafts = (_t: TestTenant, headers: Record<string, string>, action: string, id: string, payload?: object) =>
  r.app.inject({ method: 'POST', url: `/functions/v1/reengagement/drafts/${id}/${action}`, headers, payload });

// The customer's last message `ago` before the real now (the Graph send checks the window on the real clock).
async function staleConversation(settings: object, ago = 20 * H + 5 * S) {
  const c = await messengerConversation(r);
  await configure(c.t, settings);
  const last = new Date(Date.now() - ago);
  await customerLastWroteAt(r, c.t, c.conversationId, last);
  return { ...c, last };
}

describe('the re-engagement pass (§8, to the second)', () => {
  it('should nudge at trigger_hours after the last customer message and not a second before, once per window', async () => {
    r.defaultAi.completionScript.push({ content: 'Hi! The blue one is still in stock, shall I keep one for you?' });
    const c = await staleConversation({ approval_mode: false });
    expect((await scheduler.pass(new Date(c.last.getTime() + 20 * H - S))).nudged).toBe(0);
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(0);
    await scheduler.pass(new Date(c.last.getTime() + 20 * H));
    const [nudge] = await nudgesOf(c.t, c.conversationId);
    expect(nudge).toMatchObject({ status: 'sent', provider: 'default', text: 'Hi! The blue one is still in stock, shall I keep one for you?' });
    expect(graphTexts(c.pageId)).toEqual(['Hi! The blue one is still in stock, shall I keep one for you?']);
    const sent = r.defaultAi.completions.at(-1)!;
    expect(sent.authorization).toBe('Bearer platform-ai-key-0123456789');
    expect(JSON.stringify(sent.body.messages)).toContain('Hi, is the blue one in stock?');
    const [message] = await r.runtime.db.inTenant(c.t.ctx, (tx) =>
      tx.query<{ id: string; metadata: Record<string, unknown>; origin: string; origin_id: string }>(
        `SELECT id, metadata, origin, origin_id FROM messages WHERE direction = 'OUTBOUND'`,
      ),
    );
    // Written by re-engagement, from this nudge (its origin says so, not a metadata key).
    expect(message).toMatchObject({ origin: 'reengagement', origin_id: nudge.id, metadata: { window: 'free_form' } });
    expect(message.metadata).not.toHaveProperty('reengagement_nudge_id');
    expect(nudge.message_id).toBe(message.id);
    // One nudge per window, however many passes follow.
    expect((await scheduler.pass(new Date(c.last.getTime() + 21 * H))).nudged).toBe(0);
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(1);
    const timeline = await waitFor(
      async () =>
        (await r.app.inject({ method: 'GET', url: `/functions/v1/contacts/${c.contactId}/timeline`, headers: c.t.key })).json().entries as {
          type: string;
          data: Record<string, unknown>;
        }[],
      (entries) => entries.some((e) => e.type === 'reengagement.nudge.sent'),
    );
    expect(timeline.find((e) => e.type === 'reengagement.nudge.sent')?.data).toMatchObject({ activity: 'AI_REENGAGEMENT_SENT', nudge_id: nudge.id });
  });

  it.each([12, 23])('should honour trigger_hours %i to the second', async (hours) => {
    const c = await staleConversation({ trigger_hours: hours }, hours * H + 5 * S);
    await scheduler.pass(new Date(c.last.getTime() + hours * H - S));
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(0);
    await scheduler.pass(new Date(c.last.getTime() + hours * H));
    expect((await nudgesOf(c.t, c.conversationId)).map((n) => n.status)).toEqual(['draft']);
  });

  it('should not nudge at or after the last customer message + 24 h, and expire a draft still awaiting approval then', async () => {
    const late = await staleConversation({}, 23 * H);
    await scheduler.pass(new Date(late.last.getTime() + 24 * H));
    expect(await nudgesOf(late.t, late.conversationId)).toHaveLength(0);
    const waiting = await staleConversation({}, 23 * H);
    await scheduler.pass(new Date(waiting.last.getTime() + 24 * H - S));
    expect((await nudgesOf(waiting.t, waiting.conversationId)).map((n) => n.status)).toEqual(['draft']);
    await scheduler.pass(new Date(waiting.last.getTime() + 24 * H));
    const [expired] = await nudgesOf(waiting.t, waiting.conversationId);
    expect(expired.status).toBe('expired');
    const refused = await drafts(waiting.t, waiting.t.session, 'approve', expired.id);
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'reengagement.not_a_draft']);
    expect(refused.json().error).toContain('This nudge is expired, not draft');
  });

  it('should not nudge a conversation an agent answered after the customer’s last message', async () => {
    const c = await messengerConversation(r);
    await configure(c.t, {});
    const reply = await r.app.inject({
      method: 'POST',
      url: `/functions/v1/messaging/conversations/${c.conversationId}/reply`,
      headers: c.t.session,
      payload: { message: 'On it' },
    });
    expect(reply.statusCode).toBe(200);
    const [row] = await r.runtime.db.inTenant(c.t.ctx, (tx) =>
      tx.query<{ last_customer_message_at: Date }>(`SELECT last_customer_message_at FROM conversations`),
    );
    await scheduler.pass(new Date(row.last_customer_message_at.getTime() + 21 * H));
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(0);
  });

  it('should let an agent approve, edit or skip a draft; a skipped window gets no other nudge', async () => {
    const c = await staleConversation({});
    await scheduler.pass(new Date(c.last.getTime() + 20 * H));
    const [draft] = await nudgesOf(c.t, c.conversationId);
    expect(draft.status).toBe('draft');
    const agent = await memberHeaders(r.app, c.t, 'AGENT');
    // The spec's `?status=draft` lists the drafts waiting for approval; `drafting` (the AI writing) none.
    const list = (status: string) => r.app.inject({ method: 'GET', url: `/functions/v1/reengagement/drafts?status=${status}`, headers: agent });
    expect((await list('draft')).json().drafts).toEqual([expect.objectContaining({ id: draft.id, status: 'draft', text: draft.text })]);
    expect((await list('drafting')).json().drafts).toEqual([]);
    expect((await list('awaiting_approval')).statusCode).toBe(400);
    const viewer = await memberHeaders(r.app, c.t, 'PROJECT_MANAGER');
    expect((await drafts(c.t, viewer, 'approve', draft.id)).statusCode).toBe(403);
    expect((await drafts(c.t, agent, 'skip', draft.id)).json().nudge).toMatchObject({ status: 'skipped' });
    for (const action of ['approve', 'skip']) {
      const refused = await drafts(c.t, agent, action, draft.id);
      expect([refused.statusCode, refused.json().code]).toEqual([409, 'reengagement.not_a_draft']);
      expect(refused.json().error).toContain('This nudge is skipped, not draft');
    }
    expect((await list('draft')).json().drafts).toEqual([]);
    await scheduler.pass(new Date(c.last.getTime() + 22 * H));
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(1);
    expect(graphTexts(c.pageId)).toEqual([]);

    const e = await staleConversation({});
    await scheduler.pass(new Date(e.last.getTime() + 20 * H));
    const [toEdit] = await nudgesOf(e.t, e.conversationId);
    const edited = await drafts(e.t, agent, 'edit', toEdit.id, { text: '  Still interested? We hold it until Friday.  ' });
    expect(edited.statusCode).toBe(404); // another organization's draft does not exist for this agent
    const own = await memberHeaders(r.app, e.t, 'AGENT');
    const sent = await drafts(e.t, own, 'edit', toEdit.id, { text: '  Still interested? We hold it until Friday.  ' });
    expect(sent.statusCode).toBe(200);
    expect(sent.json().nudge).toMatchObject({ status: 'sent', text: 'Still interested? We hold it until Friday.' });
    expect(graphTexts(e.pageId)).toEqual(['Still interested? We hold it until Friday.']);
    const twice = await drafts(e.t, own, 'approve', toEdit.id);
    expect(twice.json()).toMatchObject({ code: 'reengagement.not_a_draft', error: expect.stringContaining('This nudge is sent') });
    const again = await drafts(e.t, own, 'edit', toEdit.id, { text: 'Once more' });
    expect([again.statusCode, again.json().code]).toEqual([409, 'reengagement.not_a_draft']);
  });

  it('should refuse to send a draft whose window closed, and let messaging check the window again at send time', async () => {
    // Drafted while due (the pass's clock), approved after the window's end (the real clock).
    const late = await staleConversation({}, 24 * H + 10 * S);
    await scheduler.pass(new Date(late.last.getTime() + 20 * H));
    const [closed] = await nudgesOf(late.t, late.conversationId);
    const refused = await drafts(late.t, late.t.session, 'approve', closed.id);
    expect([refused.statusCode, refused.json().code]).toEqual([422, 'reengagement.window_closed']);
    expect(graphTexts(late.pageId)).toEqual([]);

    // The nudge's window still open, but the conversation's customer message moved 25 h back: the
    // channel adapter refuses the automated send and the nudge expires.
    const c = await staleConversation({});
    await scheduler.pass(new Date(c.last.getTime() + 20 * H));
    const [draft] = await nudgesOf(c.t, c.conversationId);
    await r.runtime.db.inTenant(c.t.ctx, (tx) =>
      tx.query(`UPDATE conversations SET last_customer_message_at = now() - interval '25 hours' WHERE id = $1`, [c.conversationId]),
    );
    const answer = await drafts(c.t, c.t.session, 'approve', draft.id);
    expect([answer.statusCode, answer.json().code]).toEqual([422, 'reengagement.send_refused']);
    expect(answer.json().error).toContain('automated messages may not be sent after it');
    expect((await nudgesOf(c.t, c.conversationId))[0]).toMatchObject({ status: 'expired', sent_at: null });
    expect(graphTexts(c.pageId)).toEqual([]);
  });

  it('should answer bad input on the draft and conversation routes with a 4xx', async () => {
    const t = await createTestTenant(r.app);
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await drafts(t, t.session, 'approve', 'not-a-uuid')).statusCode).toBe(400);
    expect((await drafts(t, t.session, 'approve', id)).statusCode).toBe(404);
    expect((await drafts(t, t.session, 'skip', id)).statusCode).toBe(404);
    expect((await drafts(t, t.session, 'edit', id, {})).statusCode).toBe(400);
    expect((await drafts(t, t.session, 'edit', id, { text: '   ' })).statusCode).toBe(400);
    expect((await drafts(t, t.session, 'edit', id, { text: 'x'.repeat(1001) })).statusCode).toBe(400);
    expect((await drafts(t, t.session, 'edit', id, { text: 'ok', extra: 1 })).statusCode).toBe(400);
    const list = (q: string) => r.app.inject({ method: 'GET', url: `/functions/v1/reengagement/drafts${q}`, headers: t.session });
    expect((await list('?status=pending')).statusCode).toBe(400);
    expect((await list('?limit=500')).statusCode).toBe(400);
    expect((await list('?page=0')).statusCode).toBe(400);
    expect((await list('')).statusCode).toBe(200);
    const enable = (cid: string) => r.app.inject({ method: 'POST', url: `/functions/v1/reengagement/conversations/${cid}/enable`, headers: t.session });
    expect((await enable('nope')).statusCode).toBe(400);
    expect((await enable(id)).statusCode).toBe(404);
    expect((await drafts(t, t.key, 'approve', id)).statusCode).toBe(401);
  });
});

describe('replies and limits', () => {
  it('should mark open nudges user_replied and reset the unanswered counter when the customer writes', async () => {
    const c = await staleConversation({ approval_mode: false });
    await scheduler.pass(new Date(c.last.getTime() + 20 * H));
    const state = () => r.app.inject({ method: 'GET', url: `/functions/v1/reengagement/conversations/${c.conversationId}`, headers: c.t.session });
    expect((await state()).json()).toMatchObject({ unanswered_count: 1, disabled: false });
    await customerWrites(r, c.pageId, c.psid, 'Yes please, keep one');
    const [nudge] = await waitFor(
      () => nudgesOf(c.t, c.conversationId),
      (rows) => rows[0]?.status === 'user_replied',
    );
    expect(nudge.status).toBe('user_replied');
    expect(nudge.replied_at).not.toBeNull();
    expect((await state()).json()).toMatchObject({ unanswered_count: 0, disabled: false });
  });

  it('should disable a conversation after 3 consecutive unanswered nudges, visibly, until an OWNER or ADMIN enables it', async () => {
    const c = await staleConversation({ approval_mode: false });
    // Three windows seconds apart (a day apart in life): the account's pacing would hold the second
    // nudge to the same recipient for 6 s (Meta's pair rate), so it is lifted for this account.
    const [account] = await r.runtime.db.inTenant(c.t.ctx, (tx) =>
      tx.query<{ id: string }>(`SELECT channel_account_id AS id FROM conversations WHERE id = $1`, [c.conversationId]),
    );
    const pacing = { gap_seconds: [0, 0], per_recipient_min_gap_seconds: 0 };
    const patched = await r.app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/channel-accounts/${account.id}`,
      headers: c.t.session,
      payload: { pacing },
    });
    expect(patched.statusCode).toBe(200);
    for (let round = 1; round <= 3; round++) {
      const last = new Date(Date.now() - 20 * H - round * S);
      await customerLastWroteAt(r, c.t, c.conversationId, last);
      expect((await scheduler.pass(new Date(last.getTime() + 20 * H))).nudged).toBeGreaterThanOrEqual(1);
    }
    expect((await nudgesOf(c.t, c.conversationId)).map((n) => n.status)).toEqual(['sent', 'sent', 'sent']);
    await scheduler.pass(new Date(Date.now() + 25 * H));
    const state = () => r.app.inject({ method: 'GET', url: `/functions/v1/reengagement/conversations/${c.conversationId}`, headers: c.t.session });
    expect((await state()).json()).toMatchObject({ unanswered_count: 3, disabled: true, disabled_reason: 'unanswered_nudges' });
    const rest = await r.app.inject({ method: 'GET', url: `/rest/v1/reengagement_conversations?conversation_id=eq.${c.conversationId}`, headers: c.t.session });
    expect(rest.json()).toEqual([expect.objectContaining({ unanswered_count: 3 })]);
    const nudges = await r.app.inject({ method: 'GET', url: `/rest/v1/reengagement_nudges?conversation_id=eq.${c.conversationId}`, headers: c.t.session });
    expect(nudges.json()).toHaveLength(3);
    const stranger = await createTestTenant(r.app);
    const theirs = await r.app.inject({ method: 'GET', url: `/rest/v1/reengagement_nudges?conversation_id=eq.${c.conversationId}`, headers: stranger.session });
    expect(theirs.json()).toEqual([]);
    const write = await r.app.inject({
      method: 'PATCH',
      url: `/rest/v1/reengagement_nudges?id=eq.${nudges.json()[0].id}`,
      headers: c.t.session,
      payload: { status: 'skipped' },
    });
    expect(write.statusCode).toBeGreaterThanOrEqual(400);
    expect(write.statusCode).toBeLessThan(500);

    const fourth = new Date(Date.now() - 20 * H - 10 * S);
    await customerLastWroteAt(r, c.t, c.conversationId, fourth);
    await scheduler.pass(new Date(fourth.getTime() + 20 * H));
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(3);

    const agent = await memberHeaders(r.app, c.t, 'AGENT');
    const url = `/functions/v1/reengagement/conversations/${c.conversationId}/enable`;
    expect((await r.app.inject({ method: 'POST', url, headers: agent })).statusCode).toBe(403);
    const enabled = await r.app.inject({ method: 'POST', url, headers: c.t.session });
    expect(enabled.json()).toMatchObject({ unanswered_count: 0, disabled: false });
    await scheduler.pass(new Date(fourth.getTime() + 20 * H));
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(4);
  });

  it('should never nudge twice when passes run at once, also on another connection pool (as another worker process would)', async () => {
    const c = await staleConversation({ approval_mode: false });
    const now = new Date(c.last.getTime() + 20 * H);
    const otherDb = new Database({ pool: createPool({ url: r.runtime.config.DATABASE_URL }, 4) });
    try {
      const parts = scheduler as unknown as { drafter: Drafter; sender: NudgeSender };
      const other = new ReengagementScheduler(otherDb, parts.drafter, parts.sender, { now: () => now });
      await Promise.all([scheduler.pass(now), other.pass(now), scheduler.pass(now), other.pass(now)]);
    } finally {
      await otherDb.close();
    }
    expect(await nudgesOf(c.t, c.conversationId)).toHaveLength(1);
    expect(graphTexts(c.pageId)).toHaveLength(1);
  });
});

describe('the customer’s key', () => {
  const KEY = 'sk-customer-drafts-key-55aa77';

  it('should write with the customer key, fall back once to the default when it fails (recorded), and fail visibly without fallback', async () => {
    const c = await staleConversation({ provider: 'custom', custom_key: KEY, custom_base_url: r.customerAi.baseUrl });
    r.customerAi.completionScript.push({ content: 'From your own AI: still keen?' });
    await scheduler.pass(new Date(c.last.getTime() + 20 * H));
    expect((await nudgesOf(c.t, c.conversationId))[0]).toMatchObject({
      status: 'draft',
      provider: 'custom',
      text: 'From your own AI: still keen?',
    });
    expect(r.customerAi.completions.at(-1)!.authorization).toBe(`Bearer ${KEY}`);

    r.customerAi.refusedKeys.add(KEY);
    const f = await staleConversation({ provider: 'custom', custom_key: KEY, custom_base_url: r.customerAi.baseUrl, fallback_to_default: true });
    r.defaultAi.completionScript.push({ content: 'Written by the default AI' });
    await scheduler.pass(new Date(f.last.getTime() + 20 * H));
    expect((await nudgesOf(f.t, f.conversationId))[0]).toMatchObject({
      status: 'draft',
      provider: 'default',
      text: 'Written by the default AI',
      fallback_reason: 'custom key failed: the custom AI answered 401 (key refused)',
    });

    const n = await staleConversation({ provider: 'custom', custom_key: KEY, custom_base_url: r.customerAi.baseUrl, fallback_to_default: false });
    await scheduler.pass(new Date(n.last.getTime() + 20 * H));
    const [failed] = await nudgesOf(n.t, n.conversationId);
    expect(failed).toMatchObject({ status: 'failed', provider: 'custom', text: null });
    expect(failed.failure_reason).toContain('answered 401');
    const listed = await r.app.inject({ method: 'GET', url: '/functions/v1/reengagement/drafts?status=failed', headers: n.t.session });
    expect(listed.json().drafts).toHaveLength(1);
    for (const body of [listed.body, JSON.stringify(failed)]) expect(body).not.toContain(KEY);
    expect(captured.some((line) => line.includes('/functions/v1/reengagement/'))).toBe(true);
    for (const line of captured) expect(line).not.toContain(KEY);
  });

  it('should refuse a draft that breaks the output guard', async () => {
    const c = await staleConversation({});
    r.defaultAi.completionScript.push({ content: 'Hi {{first_name}}, still there?' });
    await scheduler.pass(new Date(c.last.getTime() + 20 * H));
    expect((await nudgesOf(c.t, c.conversationId))[0]).toMatchObject({ status: 'failed', failure_reason: 'the draft contains a template marker' });
  });
});
