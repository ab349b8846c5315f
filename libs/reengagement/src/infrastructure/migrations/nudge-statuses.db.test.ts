import { messengerConversation, type ReengagementApp, startReengagementApp } from '../../testing';
import { RenameNudgeStatuses1763800012002 } from './0002-rename-nudge-statuses';

const H = 3_600_000;
let r: ReengagementApp;

beforeAll(async () => {
  r = await startReengagementApp();
});
afterAll(() => r.stop());

type Conversation = Awaited<ReturnType<typeof messengerConversation>>;

// A nudge of the conversation's window `hoursAgo` back (one per window), with `status` or the column's default.
const insert = async (c: Conversation, hoursAgo: number, status?: string) => {
  const last = new Date(Math.floor(Date.now() / 1000) * 1000 - hoursAgo * H);
  const params = [c.conversationId, c.contactId, last, new Date(last.getTime() + 24 * H), ...(status === undefined ? [] : [status])];
  const [row] = await r.runtime.db.inTenant(c.t.ctx, (tx) =>
    tx.query<{ id: string; status: string }>(
      `INSERT INTO reengagement_nudges (organization_id, conversation_id, contact_id, last_customer_message_at, window_closes_at, status)
       VALUES (app_org_id(), $1, $2, $3, $4, ${status === undefined ? 'DEFAULT' : '$5'}) RETURNING id, status`,
      params,
    ),
  );
  return row;
};
const statuses = async (c: Conversation) =>
  Object.fromEntries(
    (await r.runtime.db.inTenant(c.t.ctx, (tx) => tx.query<{ id: string; status: string }>(`SELECT id, status FROM reengagement_nudges`))).map((n) => [
      n.id,
      n.status,
    ]),
  );
const awaitingIndex = async () => {
  const [row] = await r.runtime.db.asSystem((tx) =>
    tx.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'reengagement_nudges_awaiting_idx'`),
  );
  return row.indexdef;
};
const migrate = async (direction: 'up' | 'down') => {
  const runner = r.runtime.dataSource.createQueryRunner();
  try {
    await new RenameNudgeStatuses1763800012002()[direction](runner);
  } finally {
    await runner.release();
  }
};

describe('the nudges’ statuses (the spec’s §3 names)', () => {
  it('should take drafting (the default, while the AI writes) and draft (waiting for approval), and refuse awaiting_approval', async () => {
    const c = await messengerConversation(r);
    const writing = await insert(c, 1);
    expect(writing.status).toBe('drafting');
    expect((await insert(c, 2, 'draft')).status).toBe('draft');
    // One the AI is still writing is not an agent's to approve.
    const approve = await r.app.inject({ method: 'POST', url: `/functions/v1/reengagement/drafts/${writing.id}/approve`, headers: c.t.session });
    expect([approve.statusCode, approve.json().code]).toEqual([409, 'reengagement.not_a_draft']);
    await expect(insert(c, 3, 'awaiting_approval')).rejects.toThrow(/reengagement_nudges_status_known/);
    expect(await awaitingIndex()).toContain(`WHERE (status = ANY (ARRAY['drafting'::text, 'draft'::text]))`);
  });

  it('should rename existing rows when the migration runs: draft to drafting, awaiting_approval to draft, each row once', async () => {
    const c = await messengerConversation(r);
    const kept = await insert(c, 4, 'sent');
    const writing = await insert(c, 5, 'drafting');
    const waiting = await insert(c, 6, 'draft');
    await migrate('down');
    try {
      expect(await statuses(c)).toEqual({ [kept.id]: 'sent', [writing.id]: 'draft', [waiting.id]: 'awaiting_approval' });
      // Rows written under the old names, the old default among them.
      const oldDefault = await insert(c, 7);
      expect(oldDefault.status).toBe('draft');
      const oldWaiting = await insert(c, 8, 'awaiting_approval');
      await expect(insert(c, 9, 'drafting')).rejects.toThrow(/reengagement_nudges_status_known/);
      await migrate('up');
      expect(await statuses(c)).toEqual({
        [kept.id]: 'sent',
        [writing.id]: 'drafting',
        [waiting.id]: 'draft',
        [oldDefault.id]: 'drafting',
        [oldWaiting.id]: 'draft',
      });
    } catch (error) {
      // Leave the schema as the other tests of this database expect it.
      if ((await awaitingIndex()).includes('awaiting_approval')) await migrate('up');
      throw error;
    }
    await expect(insert(c, 10, 'awaiting_approval')).rejects.toThrow(/reengagement_nudges_status_known/);
    expect((await insert(c, 11)).status).toBe('drafting');
    expect(await awaitingIndex()).toContain(`'drafting'::text, 'draft'::text`);
  });
});
