import { setTimeout as sleep } from 'node:timers/promises';
import { OUTCOME_UNKNOWN } from './scheduled-messages';
import { CLAIM_DUE_SCHEDULED_MESSAGE } from './scheduled-messages.sql';
import { type ScheduledTestApp, startScheduledTestApp } from '../testing/scheduled-test-app';

// The scheduled-send pass against the real database and a recording chat-app provider: several
// passes at once stand for several workers (each claim is one statement, as in production).
let s: ScheduledTestApp;

beforeAll(async () => {
  s = await startScheduledTestApp();
});
afterAll(() => s.close());

const url = '/functions/v1/messaging/scheduled-messages';
const callsWith = (text: string) => s.provider.calls.filter((c) => c.body.UOWCHAT.message === text);

describe('the scheduled-send pass', () => {
  it('should send it once, not before send_at, as its author with origin scheduled', async () => {
    const { t, conversationId, number } = await s.conversation();
    const sendAt = new Date(Date.now() + 1500);
    const made = (await s.schedule(t.session, conversationId, { text: 'On time', send_at: sendAt.toISOString() })).json();
    // Due by the database's clock only: passes before send_at claim nothing.
    await Promise.all([s.pass().sendDue(), s.pass().sendDue()]);
    expect(callsWith('On time')).toHaveLength(0);
    expect((await s.statusOf(made.id)).status).toBe('scheduled');
    await sleep(Math.max(0, sendAt.getTime() - Date.now()) + 50);
    const passes = await Promise.all([s.pass().sendDue(), s.pass().sendDue(), s.pass().sendDue()]);
    expect(passes.flat().map((r) => r.id)).toEqual([made.id]);
    const calls = callsWith('On time');
    expect(calls).toHaveLength(1);
    expect(calls[0].at).toBeGreaterThanOrEqual(sendAt.getTime());
    expect(calls[0].body.UOWCHAT.receivers).toEqual([{ mobileNum: number }]);
    const done = await s.statusOf(made.id);
    expect(done).toMatchObject({ status: 'sent', error: null });
    const messages = await s.rows<{ id: string; origin: string; origin_id: string; status: string; direction: string }>(
      t,
      `SELECT id, origin, origin_id, status, direction FROM messages WHERE content = 'On time'`,
    );
    expect(messages).toEqual([{ id: done.sent_message_ids[0], origin: 'scheduled', origin_id: made.id, status: 'SENT', direction: 'OUTBOUND' }]);
    // Once sent: no edit, no cancel.
    expect((await s.json(t.session, 'DELETE', `${url}/${made.id}`)).statusCode).toBe(409);
    expect((await s.json(t.session, 'PATCH', `${url}/${made.id}`, { text: 'x' })).statusCode).toBe(409);
    await Promise.all([s.pass().sendDue(), s.pass().sendDue()]);
    expect(callsWith('On time')).toHaveLength(1);
  });

  it('should send each of many due messages exactly once across passes running together', async () => {
    const { t, conversationId } = await s.conversation();
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const made = (await s.schedule(t.session, conversationId, { text: `batch ${i}`, send_at: s.inSeconds(60) })).json();
      await s.makeDue(made.id);
      ids.push(made.id);
    }
    await Promise.all([s.pass({ lanes: 3 }).sendDue(), s.pass({ lanes: 3 }).sendDue(), s.pass({ lanes: 2 }).sendDue()]);
    for (let i = 0; i < 24; i++) expect({ i, calls: callsWith(`batch ${i}`).length }).toEqual({ i, calls: 1 });
    const statuses = await s.rows<{ status: string; n: number }>(t, `SELECT status, count(*)::int AS n FROM scheduled_messages GROUP BY status`);
    expect(statuses).toEqual([{ status: 'sent', n: 24 }]);
  });

  it("should be cancelled by the customer's reply when asked, and sent anyway when not", async () => {
    const { t, conversationId, customerWrites } = await s.conversation();
    const cancels = (await s.schedule(t.session, conversationId, { text: 'Still there?', send_at: s.inSeconds(60) })).json();
    const stays = (await s.schedule(t.session, conversationId, { text: 'Reminder', send_at: s.inSeconds(60), cancel_on_reply: false })).json();
    await customerWrites();
    expect((await s.statusOf(cancels.id)).status).toBe('cancelled_by_reply');
    expect((await s.statusOf(stays.id)).status).toBe('scheduled');
    await s.makeDue(cancels.id);
    await s.makeDue(stays.id);
    await s.pass().sendDue();
    expect(callsWith('Still there?')).toHaveLength(0);
    expect(callsWith('Reminder')).toHaveLength(1);
    // A DELETE of one cancelled by a reply changes nothing and succeeds.
    expect((await s.json(t.session, 'DELETE', `${url}/${cancels.id}`)).json()).toMatchObject({ status: 'cancelled_by_reply' });
  });

  // The pass starts after a growing delay, so both orders happen (the first rounds the pass wins, the
  // last ones the other side); at every delay the two overlap in the database or meet at the row lock.
  const DELAYS_MS = [0, 2, 5, 10, 20, 40, 80, 160, 320, 640];
  const passAfter = async (ms: number) => {
    await sleep(ms);
    return s.pass().sendDue();
  };

  it("should either send it or cancel it when the customer's reply races the send, never both", async () => {
    const outcomes = new Set<string>();
    for (const [round, delay] of DELAYS_MS.entries()) {
      const { t, conversationId, customerWrites } = await s.conversation();
      const text = `race reply ${round}`;
      const made = (await s.schedule(t.session, conversationId, { text, send_at: s.inSeconds(60) })).json();
      await s.makeDue(made.id);
      await Promise.all([customerWrites(), passAfter(delay)]);
      const { status } = await s.statusOf(made.id);
      outcomes.add(status);
      expect({ round, status, calls: callsWith(text).length }).toEqual(
        status === 'sent' ? { round, status, calls: 1 } : { round, status: 'cancelled_by_reply', calls: 0 },
      );
    }
    expect([...outcomes].sort()).toEqual(['cancelled_by_reply', 'sent']);
  });

  it('should skip a message whose reply is being stored, and find it cancelled once that commits', async () => {
    const { t, conversationId } = await s.conversation();
    const made = (await s.schedule(t.session, conversationId, { text: 'Held by a reply', send_at: s.inSeconds(60) })).json();
    await s.makeDue(made.id);
    // An inbound writer's transaction, still open when the pass runs: the trigger holds the row.
    await s.runtime.db.inTenant(
      t.ctx,
      async (tx) => {
        await tx.query(
          `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin)
           SELECT organization_id, id, contact_id, channel_account_id, 'INBOUND', 'DELIVERED', 'wait!', 'customer' FROM conversations WHERE id = $1`,
          [conversationId],
        );
        expect(await s.pass().sendDue()).toEqual([]);
      },
      { purpose: 'inbound' },
    );
    expect((await s.statusOf(made.id)).status).toBe('cancelled_by_reply');
    await s.pass().sendDue();
    expect(callsWith('Held by a reply')).toHaveLength(0);
  });

  it('should answer a DELETE racing the send with cancelled (nothing sent) or 409 (sent), never both', async () => {
    const answers = new Set<number>();
    for (const [round, delay] of DELAYS_MS.entries()) {
      const { t, conversationId } = await s.conversation();
      const text = `race delete ${round}`;
      const made = (await s.schedule(t.session, conversationId, { text, send_at: s.inSeconds(60) })).json();
      await s.makeDue(made.id);
      const [deleted] = await Promise.all([s.json(t.session, 'DELETE', `${url}/${made.id}`), passAfter(delay)]);
      const { status } = await s.statusOf(made.id);
      const calls = callsWith(text).length;
      answers.add(deleted.statusCode);
      if (deleted.statusCode === 200) expect({ round, status, calls }).toEqual({ round, status: 'cancelled', calls: 0 });
      else expect({ round, code: deleted.statusCode, status, calls }).toEqual({ round, code: 409, status: 'sent', calls: 1 });
    }
    expect([...answers].sort()).toEqual([200, 409]);
  });

  it('should record a failed send with the provider words, and a send whose process died as outcome_unknown, never resent', async () => {
    const { t, conversationId, number } = await s.conversation();
    s.provider.script = (call) => (call.body.UOWCHAT.receivers[0].mobileNum === number ? { status: 500, body: { message: 'number banned' } } : undefined);
    const failing = (await s.schedule(t.session, conversationId, { text: 'Will fail', send_at: s.inSeconds(60) })).json();
    await s.makeDue(failing.id);
    await s.pass().sendDue();
    s.provider.script = () => undefined;
    const failed = await s.statusOf(failing.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('number banned');
    expect(failed.sent_message_ids).toHaveLength(1);

    // Claimed by a process that died before sending: left `sending` until stale, then outcome_unknown.
    const orphan = (await s.schedule(t.session, conversationId, { text: 'Orphan', send_at: s.inSeconds(60) })).json();
    await s.makeDue(orphan.id);
    const [claimed] = await s.runtime.db.systemQuery<{ id: string }>(CLAIM_DUE_SCHEDULED_MESSAGE);
    expect(claimed.id).toBe(orphan.id);
    expect(await s.pass().settleStale()).toEqual([]);
    await s.pass().sendDue();
    expect((await s.statusOf(orphan.id)).status).toBe('sending');
    expect((await s.json(t.session, 'DELETE', `${url}/${orphan.id}`)).statusCode).toBe(409);
    const later = () => Date.now() + 11 * 60_000;
    const settled = await s.pass({}, later).settleStale();
    expect(settled.map((r) => r.id)).toContain(orphan.id);
    expect(await s.statusOf(orphan.id)).toEqual({ status: 'failed', error: OUTCOME_UNKNOWN, sent_message_ids: [] });
    await s.pass().sendDue();
    expect(callsWith('Orphan')).toHaveLength(0);

    // Died after its message went out: settled as sent, from that message.
    const lost = (await s.schedule(t.session, conversationId, { text: 'Went out', send_at: s.inSeconds(60) })).json();
    await s.makeDue(lost.id);
    await s.runtime.db.systemQuery(CLAIM_DUE_SCHEDULED_MESSAGE);
    const [message] = await s.rows<{ id: string }>(
      t,
      `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin, origin_id)
       SELECT organization_id, id, contact_id, channel_account_id, 'OUTBOUND', 'SENT', 'Went out', 'scheduled', $2 FROM conversations WHERE id = $1
       RETURNING id`,
      [conversationId, lost.id],
    );
    await s.pass({}, later).settleStale();
    expect(await s.statusOf(lost.id)).toEqual({ status: 'sent', error: null, sent_message_ids: [message.id] });
  });

  it('should fail a send whose author left the organization, sending nothing', async () => {
    const { t, conversationId } = await s.conversation();
    const made = (await s.schedule(t.session, conversationId, { text: 'Orphaned author', send_at: s.inSeconds(60) })).json();
    await s.makeDue(made.id);
    await s.runtime.db.asSystem((tx) => tx.query(`UPDATE scheduled_messages SET created_by = gen_random_uuid() WHERE id = $1`, [made.id]));
    await s.pass().sendDue();
    expect(await s.statusOf(made.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('author_not_member') });
    expect(callsWith('Orphaned author')).toHaveLength(0);
  });
});
