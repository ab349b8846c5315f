import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { MESSAGE_RECEIVED, MESSAGE_SENT } from '@engage/messaging';
import { EventSubscriptions, type Tx } from '@engage/platform';
import { createEvent, type DomainEvent } from '@engage/shared-kernel';
import { REPLY_CONSUMER } from './reply-consumer';
import { MARK_REPLIED } from '../infrastructure/reengagement.sql';
import { messengerConversation, type ReengagementApp, startReengagementApp } from '../testing';

const H = 3_600_000;
const M = 60_000;
let r: ReengagementApp;

beforeAll(async () => {
  r = await startReengagementApp();
});
afterAll(() => r.stop());

type Conversation = Awaited<ReturnType<typeof messengerConversation>>;
type NudgeRow = { id: string; conversation_id: string; status: string; replied_at: Date | null; updated_at: Date };

const nudge = async (c: Conversation, status: string, last: Date, closes = new Date(last.getTime() + 24 * H)) => {
  const [row] = await r.runtime.db.inTenant(c.t.ctx, (tx) =>
    tx.query<{ id: string }>(
      `INSERT INTO reengagement_nudges (organization_id, conversation_id, contact_id, status, last_customer_message_at, window_closes_at)
       VALUES (app_org_id(), $1, $2, $3, $4, $5) RETURNING id`,
      [c.conversationId, c.contactId, status, last, closes],
    ),
  );
  return row.id;
};
const unanswered = (c: Conversation, count: number) =>
  r.runtime.db.inTenant(c.t.ctx, (tx) =>
    tx.execute(
      `INSERT INTO reengagement_conversations (organization_id, conversation_id, unanswered_count) VALUES (app_org_id(), $1, $2)
       ON CONFLICT (organization_id, conversation_id) DO UPDATE SET unanswered_count = $2`,
      [c.conversationId, count],
    ),
  );
const nudgesOf = (t: TestTenant) =>
  r.runtime.db.inTenant(t.ctx, (tx) => tx.query<NudgeRow>(`SELECT id, conversation_id, status, replied_at, updated_at FROM reengagement_nudges ORDER BY id`));
const countersOf = (t: TestTenant) =>
  r.runtime.db.inTenant(t.ctx, (tx) =>
    tx.query<{ conversation_id: string; unanswered_count: number }>(
      `SELECT conversation_id, unanswered_count FROM reengagement_conversations ORDER BY conversation_id`,
    ),
  );
const message = (organizationId: string, conversationId: string, at: Date, type = MESSAGE_RECEIVED.name, direction = 'INBOUND') =>
  createEvent<Record<string, unknown>>({
    type,
    source: MESSAGE_RECEIVED.source,
    organizationId,
    aggregateId: conversationId,
    payload: { message: { id: crypto.randomUUID(), conversation_id: conversationId, direction, created_at: at.toISOString() }, actor_id: null },
  });

// The consumer fed a relay batch at once (handleBatch), as the in-process bus does.
describe('customers’ replies consumed a batch at a time', () => {
  it('should answer each open nudge by the first message of the batch it follows, per organization, under its row-level security', async () => {
    const [a, b] = [await createTestTenant(r.app), await createTestTenant(r.app)];
    const [c1, c2, c3] = [await messengerConversation(r, a), await messengerConversation(r, a), await messengerConversation(r, a)];
    const [c4, c5] = [await messengerConversation(r, b), await messengerConversation(r, b)];
    const t0 = new Date(Math.floor((Date.now() - 3 * H) / 1000) * 1000);
    const [t1, t2] = [new Date(t0.getTime() + 60 * M), new Date(t0.getTime() + 70 * M)];

    const sent1 = await nudge(c1, 'sent', t0);
    const followsFirst = await nudge(c1, 'draft', t1); // opened by the first message: answered by the second
    const closed = await nudge(c1, 'sent', new Date(t0.getTime() - 30 * H)); // its window ended before either message
    await unanswered(c1, 2);
    const drafting2 = await nudge(c2, 'drafting', t0); // the AI still writing it
    const skipped2 = await nudge(c2, 'skipped', new Date(t0.getTime() - 1000));
    await unanswered(c2, 1);
    const sent4 = await nudge(c4, 'sent', t0);
    await unanswered(c4, 1);
    const sent5 = await nudge(c5, 'sent', t0);
    await unanswered(c5, 1);

    const first = message(a.ctx.organizationId, c1.conversationId, t1);
    const batch: DomainEvent[] = [
      first,
      message(a.ctx.organizationId, c2.conversationId, new Date(t1.getTime() + M)),
      message(b.ctx.organizationId, c4.conversationId, new Date(t1.getTime() + 2 * M)),
      message(a.ctx.organizationId, c1.conversationId, t2),
      first, // a repeat inside the batch
      message(a.ctx.organizationId, c3.conversationId, t2), // no nudge, no counter: nothing to do
      message(a.ctx.organizationId, c5.conversationId, t2), // another organization's conversation under a's event: not reached
      message(b.ctx.organizationId, c5.conversationId, t2, MESSAGE_SENT.name, 'OUTBOUND'), // not a customer's message
    ];
    const consumer = r.app
      .get(EventSubscriptions)
      .all()
      .find((s) => s.consumer === REPLY_CONSUMER)!;
    await consumer.handleBatch!(batch);

    const state = (rows: NudgeRow[]) => Object.fromEntries(rows.map((n) => [n.id, [n.status, n.replied_at?.toISOString() ?? null]]));
    const mine = await nudgesOf(a);
    expect(state(mine)).toEqual({
      [sent1]: ['user_replied', t1.toISOString()],
      [followsFirst]: ['user_replied', t2.toISOString()],
      [closed]: ['sent', null],
      [drafting2]: ['user_replied', new Date(t1.getTime() + M).toISOString()],
      [skipped2]: ['skipped', null],
    });
    const theirs = await nudgesOf(b);
    expect(state(theirs)).toEqual({ [sent4]: ['user_replied', new Date(t1.getTime() + 2 * M).toISOString()], [sent5]: ['sent', null] });
    const counters = (rows: { conversation_id: string; unanswered_count: number }[]) =>
      Object.fromEntries(rows.map((x) => [x.conversation_id, x.unanswered_count]));
    // Reset where a sent nudge was answered; one answered before it was sent leaves the counter; none created for c3.
    expect(counters(await countersOf(a))).toEqual({ [c1.conversationId]: 0, [c2.conversationId]: 1 });
    expect(counters(await countersOf(b))).toEqual({ [c4.conversationId]: 0, [c5.conversationId]: 1 });

    // Delivered again after a later nudge went out unanswered: nothing changes.
    const later = await nudge(c1, 'sent', new Date(t2.getTime() + M));
    await unanswered(c1, 1);
    await consumer.handleBatch!(batch);
    expect(await nudgesOf(b)).toEqual(theirs);
    const again = await nudgesOf(a);
    expect(again.filter((n) => n.id !== later)).toEqual(mine);
    expect(again.find((n) => n.id === later)).toMatchObject({ status: 'sent', replied_at: null });
    expect(counters(await countersOf(a))).toEqual({ [c1.conversationId]: 1, [c2.conversationId]: 1 });
  });

  it('should lock nudges in id order, so batches naming conversations in another order wait instead of deadlocking', async () => {
    const t = await createTestTenant(r.app);
    const [x, y] = [await messengerConversation(r, t), await messengerConversation(r, t)];
    const t0 = new Date(Math.floor((Date.now() - 3 * H) / 1000) * 1000);
    const [nx, ny] = [await nudge(x, 'sent', t0), await nudge(y, 'sent', t0)];
    const [low, high] = nx < ny ? [x, y] : [y, x];
    const at = new Date(t0.getTime() + 60 * M).toISOString();
    const mark = async (tx: Tx, conversations: Conversation[]) => {
      const [row] = await tx.query<{ replied: number }>(MARK_REPLIED, [conversations.map((c) => c.conversationId), conversations.map(() => at)]);
      return row.replied;
    };
    let holdsLow!: () => void;
    let mayGoOn!: () => void;
    const lowHeld = new Promise<void>((resolve) => (holdsLow = resolve));
    const goOn = new Promise<void>((resolve) => (mayGoOn = resolve));
    // A answers the low nudge's conversation, then (later, same transaction) the high one's.
    const first = r.runtime.db.inTenant(t.ctx, async (tx) => {
      const replied = await mark(tx, [low]);
      holdsLow();
      await goOn;
      return replied + (await mark(tx, [high]));
    });
    await lowHeld;
    // B names them high first. Locking in that order it would hold the high nudge while waiting for
    // the low one, and A's second statement would then wait for B: a deadlock.
    const second = r.runtime.db.inTenant(t.ctx, (tx) => mark(tx, [high, low]));
    const waiting = async () => {
      const [row] = await r.runtime.db.asSystem((tx) =>
        tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`),
      );
      return row.n;
    };
    for (let tries = 0; (await waiting()) === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await waiting()).toBe(1);
    mayGoOn();
    expect(await first).toBe(2);
    expect(await second).toBe(0); // both already answered when B got the locks
    expect((await nudgesOf(t)).map((n) => [n.status, n.replied_at?.toISOString()])).toEqual([
      ['user_replied', at],
      ['user_replied', at],
    ]);
  });
});
