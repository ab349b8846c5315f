import { OutboundQueueWorker } from '@engage/messaging';
import type { TestTenant } from '@engage/identity/testing';
import { ReengagementScheduler } from './scheduler';
import { captureOutput, customerLastWroteAt, customerWrites, messengerConversation, type ReengagementApp, startReengagementApp, waitFor } from '../testing';

const H = 3_600_000;
let r: ReengagementApp;

beforeAll(async () => {
  captureOutput();
  r = await startReengagementApp();
});
afterAll(async () => {
  jest.restoreAllMocks();
  await r.stop();
});

type Nudge = { id: string; status: string; message_id: string | null; sent_at: Date | null; failure_reason: string | null };
const nudgesOf = (t: TestTenant, conversationId: string) =>
  r.runtime.db.inTenant(t.ctx, (tx) => tx.query<Nudge>(`SELECT * FROM reengagement_nudges WHERE conversation_id = $1 ORDER BY created_at`, [conversationId]));
const messageOf = (t: TestTenant, id: string) =>
  r.runtime.db.inTenant(
    t.ctx,
    async (tx) => (await tx.query<{ status: string; error: string | null; origin: string }>(`SELECT * FROM messages WHERE id = $1`, [id]))[0],
  );
const graphTexts = (pageId: string) =>
  r.graph.calls.filter((c) => c.method === 'POST' && c.path.includes(pageId)).map((c) => (c.body.message as { text?: string }).text);

// A draft waiting for approval on a Messenger account whose queue is paused (the pacing holds everything).
async function heldDraft() {
  const c = await messengerConversation(r);
  const settings = await r.app.inject({ method: 'PUT', url: '/functions/v1/reengagement/settings', headers: c.t.session, payload: { enabled: true } });
  expect(settings.statusCode).toBe(200);
  const last = new Date(Date.now() - 20 * H - 5_000);
  await customerLastWroteAt(r, c.t, c.conversationId, last);
  r.defaultAi.completionScript.push({ content: 'Still thinking about the blue one?' });
  await r.app.get(ReengagementScheduler).pass(new Date(last.getTime() + 20 * H));
  const [draft] = await nudgesOf(c.t, c.conversationId);
  expect(draft.status).toBe('draft');
  const [account] = await r.runtime.db.inTenant(c.t.ctx, (tx) =>
    tx.query<{ id: string }>(`SELECT channel_account_id AS id FROM conversations WHERE id = $1`, [c.conversationId]),
  );
  const paused = await r.app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${account.id}/pause`, headers: c.t.session });
  expect(paused.statusCode).toBe(200);
  const approved = await r.app.inject({ method: 'POST', url: `/functions/v1/reengagement/drafts/${draft.id}/approve`, headers: c.t.session });
  expect(approved.statusCode).toBe(200);
  expect(approved.json().nudge).toMatchObject({ id: draft.id, status: 'queued', sent_at: null });
  const [queued] = await nudgesOf(c.t, c.conversationId);
  expect(await messageOf(c.t, queued.message_id!)).toMatchObject({ status: 'QUEUED', origin: 'reengagement' });
  const resume = async () => {
    const res = await r.app.inject({ method: 'POST', url: `/functions/v1/messaging/channel-accounts/${account.id}/resume`, headers: c.t.session });
    expect(res.statusCode).toBe(200);
    await r.app.get(OutboundQueueWorker).sendOn(account.id);
  };
  return { ...c, nudge: queued, resume };
}

describe('nudges through the paced queue', () => {
  it('should keep a nudge queued while the pacing holds its message, and mark it sent (with its activity) when it leaves', async () => {
    const c = await heldDraft();
    expect(graphTexts(c.pageId)).toEqual([]);
    await c.resume();
    const [nudge] = await waitFor(
      () => nudgesOf(c.t, c.conversationId),
      (rows) => rows[0]?.status === 'sent',
    );
    expect(nudge).toMatchObject({ status: 'sent', message_id: c.nudge.message_id });
    expect(nudge.sent_at).not.toBeNull();
    expect(graphTexts(c.pageId)).toEqual(['Still thinking about the blue one?']);
    expect(await messageOf(c.t, c.nudge.message_id!)).toMatchObject({ status: 'SENT' });
    const timeline = await waitFor(
      async () =>
        (await r.app.inject({ method: 'GET', url: `/functions/v1/contacts/${c.contactId}/timeline`, headers: c.t.key })).json().entries as { type: string }[],
      (entries) => entries.some((e) => e.type === 'reengagement.nudge.sent'),
    );
    expect(timeline.filter((e) => e.type === 'reengagement.nudge.sent')).toHaveLength(1);
  });

  it('should withdraw a queued nudge when the customer writes first: user_replied, never sent', async () => {
    const c = await heldDraft();
    await customerWrites(r, c.pageId, c.psid, 'Actually yes, I will take it');
    await waitFor(
      () => nudgesOf(c.t, c.conversationId),
      (rows) => rows[0]?.status === 'user_replied',
    );
    await c.resume();
    const message = await waitFor(
      () => messageOf(c.t, c.nudge.message_id!),
      (m) => m.status === 'FAILED',
    );
    expect(message.error).toContain('the customer wrote after this message was queued');
    expect(graphTexts(c.pageId)).toEqual([]);
    expect((await nudgesOf(c.t, c.conversationId))[0].status).toBe('user_replied');
  });

  it('should expire a queued nudge whose window closed before the queue sent it', async () => {
    const c = await heldDraft();
    await customerLastWroteAt(r, c.t, c.conversationId, new Date(Date.now() - 25 * H));
    await c.resume();
    const [nudge] = await waitFor(
      () => nudgesOf(c.t, c.conversationId),
      (rows) => rows[0]?.status !== 'queued',
    );
    expect(nudge.status).toBe('expired');
    expect(nudge.failure_reason).toContain('automated messages may not be sent after it');
    expect(graphTexts(c.pageId)).toEqual([]);
  });
});
