import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { metaBody } from '../../testing/meta-peers';
import { type MetaTestApp, startMetaTestApp } from '../../testing/meta-test-app';
import { InboundProcessor } from '../../inbound/inbound-processor';
import { SocialInbound } from './social-inbound';

let meta: MetaTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;

beforeAll(async () => {
  meta = await startMetaTestApp({ secret: 'meta-app-secret-for-batch-tests' });
  ({ app, runtime } = meta);
});
afterAll(() => meta.close());

// One lane, so a pass forms its batches in a known order; the processor of the module otherwise.
const processor = () => new InboundProcessor(runtime.db, app.get(ContactService), undefined, 1, app.get(SocialInbound));
const sql = <T = Record<string, unknown>>(t: TestTenant, text: string, params: unknown[] = []) => meta.rows<T>(t, text, params);
const outbox = async (t: TestTenant, type: string) => (await meta.events(t, type)).length;
const dueNow = (t: TestTenant) => sql(t, 'UPDATE inbound_events SET next_attempt_at = now() WHERE processed_at IS NULL');

async function withPage() {
  const { accountId, ...rest } = await meta.connectAccount('messenger', `EAAG${'b'.repeat(40)}`);
  return { ...rest, pageId: accountId };
}

const msg = (psid: string, mid: string, body: string) => ({
  sender: { id: psid },
  recipient: { id: 'page' },
  timestamp: Date.now() - 1000,
  message: { mid, text: body },
});
const echo = (pageId: string, psid: string, mid: string, body: string) => ({
  sender: { id: pageId },
  recipient: { id: psid },
  timestamp: Date.now(),
  message: { mid, text: body, is_echo: true },
});
const receipt = (psid: string, kind: 'delivery' | 'read', fields: object) => ({
  sender: { id: psid },
  recipient: { id: 'page' },
  timestamp: Date.now(),
  [kind]: fields,
});

// Before: customer "old" wrote once, we sent them out-1, their conversation is snoozed, and an echo
// was seen once (its first try gives the send path its turn). Then, stored for one pass: `n` new
// customers writing twice, a replay of m_old, a copy of a message within the batch, "old" writing
// again, a postback, the echo again with delivery and read receipts naming it and out-1 (messages of
// this same pass), a receipt for an id never sent, one that moves nothing, one from an unknown
// customer, and an event for an unknown page.
async function mixedBatch(t: TestTenant, pageId: string, channelId: string, n: number) {
  await meta.send(metaBody('page', pageId, [msg('old', 'm_old', 'earlier')]));
  expect(await processor().processDue()).toBe(1);
  const [conv] = await sql<{ id: string; contact_id: string }>(t, 'SELECT id, contact_id FROM conversations');
  await sql(
    t,
    `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, external_id, created_at, origin)
    VALUES (app_org_id(), $1, $2, $3, 'OUTBOUND', 'SENT', 'Our offer', 'out-1', now() - interval '1 minute', 'agent')`,
    [conv.id, conv.contact_id, channelId],
  );
  await sql(t, "UPDATE conversations SET status = 'SNOOZED', snoozed_until = now() + interval '1 day'");
  await meta.send(metaBody('page', pageId, [echo(pageId, 'old', 'm_echo', 'Sent from the page inbox')]));
  expect(await processor().processDue()).toBe(0);

  const customers = Array.from({ length: n }, (_v, i) => `c${i}`);
  const first = customers.map((c) => msg(c, `m_${c}_1`, `${c} one`));
  const second = customers.map((c) => msg(c, `m_${c}_2`, `${c} two`));
  expect((await meta.send(metaBody('page', pageId, first))).body).toEqual({ received: true, stored: n });
  await dueNow(t);
  const mixed = [
    msg('old', 'm_old', 'earlier (replayed)'),
    msg('c3', 'm_c3_1', 'c3 one (again)'),
    msg('old', 'm_old_2', 'back again'),
    { sender: { id: 'c5' }, recipient: { id: pageId }, timestamp: Date.now(), postback: { mid: 'pb_c5', title: 'Buy now', payload: 'BUY' } },
    receipt('old', 'delivery', { mids: ['m_echo', 'out-1'] }),
    receipt('old', 'read', { watermark: Date.now() + 60_000 }),
    receipt('c7', 'delivery', { mids: ['never-sent'] }),
    receipt('old', 'delivery', { mids: ['out-1'] }), // already read by now: nothing moves
    receipt('ghost', 'read', { watermark: Date.now() }), // never wrote on this page
  ];
  const answer = await meta.send({
    object: 'page',
    entry: [
      { id: pageId, time: Date.now(), messaging: [...mixed, ...second] },
      { id: '404404404', time: Date.now(), messaging: [msg('x', 'm_unknown', 'to nobody')] },
    ],
  });
  return { conv, customers, stored: answer.body.stored };
}

// An event the webhook would never store: a page-scoped id longer than the channel_contacts check
// allows (its contact cannot be stored), or none at all.
// A user id over channel_contacts' 320 characters (the longest an email address may be) is refused by the database.
const storePoison = (t: TestTenant, channelId: string, id: string, user: string | undefined) =>
  runtime.db.asSystem((tx) => {
    const payload = { type: 'social_message', id, user, echo: false, text: 'x', media: [], reply_to: null, timestamp: null, postback: null };
    const insert = 'INSERT INTO inbound_events (organization_id, channel_account_id, payload) VALUES ($1, $2, $3)';
    return tx.query(insert, [t.ctx.organizationId, channelId, payload]);
  });

describe('Meta event batches in the worker', () => {
  it('should process a large mixed batch with the outcome of one event at a time, in a few transactions', async () => {
    const { t, pageId, channelId } = await withPage();
    const { conv, customers, stored } = await mixedBatch(t, pageId, channelId, 70);
    expect(stored).toBe(9 + 70);
    const settled = await processor().processDue(1000);
    // 70 + 70 + the echo, the postback, m_old_2 and two duplicates, and four receipts; c7's waits.
    expect(settled).toBe(70 + 70 + 1 + 1 + 1 + 2 + 4);

    const messages = await sql<{ external_id: string; direction: string; status: string; tx: string; contact_id: string; origin: string }>(
      t,
      'SELECT external_id, direction, status, xmin::text AS tx, contact_id, origin FROM messages ORDER BY created_at, id',
    );
    expect(messages).toHaveLength(1 + 1 + 140 + 1 + 1 + 1);
    expect(new Set(messages.map((m) => m.external_id)).size).toBe(messages.length);
    const byId = new Map(messages.map((m) => [m.external_id, m]));
    // The pass took its 150 events in ceil(150 / 50) = 3 batches, one transaction each.
    const pass = messages.filter((m) => !['m_old', 'out-1'].includes(m.external_id));
    expect(new Set(pass.map((m) => m.tx)).size).toBe(3);
    for (const c of customers) {
      const mine = messages.filter((m) => m.external_id.startsWith(`m_${c}_`)).map((m) => m.external_id);
      expect(mine).toEqual([`m_${c}_1`, `m_${c}_2`]);
    }
    // An echo was written at the page by a person (an agent); the customers' messages are theirs.
    expect(byId.get('m_echo')).toMatchObject({ direction: 'OUTBOUND', status: 'READ', contact_id: conv.contact_id, origin: 'agent' });
    expect(messages.filter((m) => m.direction === 'INBOUND').every((m) => m.origin === 'customer')).toBe(true);
    expect(byId.get('out-1')).toMatchObject({ status: 'READ' });
    expect(byId.get('m_old_2')).toMatchObject({ direction: 'INBOUND', status: 'DELIVERED', contact_id: conv.contact_id });
    expect(await sql(t, "SELECT content, metadata->>'postback' AS postback FROM messages WHERE external_id = 'pb_c5'")).toEqual([
      { content: 'Buy now', postback: 'BUY' },
    ]);

    expect(await sql(t, 'SELECT count(*)::int AS n FROM contacts')).toEqual([{ n: 71 }]);
    expect(await sql(t, 'SELECT count(*)::int AS n FROM channel_contacts')).toEqual([{ n: 71 }]);
    const conversations = await sql<{ contact_id: string; status: string; unread_count: number; window_closes_at: Date | null }>(
      t,
      'SELECT contact_id, status, unread_count, window_closes_at FROM conversations',
    );
    expect(conversations).toHaveLength(71);
    const old = conversations.find((c) => c.contact_id === conv.contact_id)!;
    expect(old).toMatchObject({ status: 'OPEN', unread_count: 2 }); // woken; the echo is not unread
    expect(
      conversations
        .filter((c) => c.contact_id !== conv.contact_id)
        .map((c) => c.unread_count)
        .sort(),
    ).toEqual(customers.map((c) => (c === 'c5' ? 3 : 2)).sort());
    expect(conversations.every((c) => c.window_closes_at !== null)).toBe(true);

    const events = await sql<{ id: string; processed_at: Date | null; last_error: string | null; attempts: number }>(
      t,
      'SELECT id, processed_at, last_error, attempts FROM inbound_events ORDER BY id',
    );
    expect(events.filter((e) => e.processed_at === null).map((e) => e.last_error)).toEqual(['no message with provider ids never-sent (yet)']);
    expect(
      events
        .filter((e) => e.last_error?.startsWith('duplicate of provider message'))
        .map((e) => e.last_error)
        .sort(),
    ).toEqual(['duplicate of provider message m_c3_1', 'duplicate of provider message m_old']);
    expect(events.filter((e) => /^(nothing moved|no customer)/.test(e.last_error ?? '')).map((e) => e.last_error)).toEqual([
      'nothing moved to DELIVERED',
      'no customer ghost on this channel',
    ]);
    expect(await sql(t, "SELECT 1 FROM inbound_events WHERE payload->>'id' = 'm_unknown'")).toHaveLength(0);
    expect(await outbox(t, 'conversation.created')).toBe(71);
    expect(await outbox(t, 'conversation.status.changed')).toBe(1);
    expect(await outbox(t, 'message.received')).toBe(1 + 140 + 2);
    expect(await outbox(t, 'message.sent')).toBe(1);
    expect(await outbox(t, 'message.delivered')).toBe(2);
    expect(await outbox(t, 'message.read')).toBe(2);
  });

  it('should end as one event at a time does: the same batch with a poison event, processed one by one, ends the same', async () => {
    const snapshot = async (t: TestTenant) => ({
      messages: await sql(
        t,
        `SELECT m.external_id, m.direction, m.status, m.content, cc.external_user_id AS customer
        FROM messages m JOIN channel_contacts cc ON cc.contact_id = m.contact_id ORDER BY m.external_id`,
      ),
      conversations: await sql(
        t,
        `SELECT cc.external_user_id AS customer, c.status, c.unread_count, c.window_closes_at IS NOT NULL AS windowed
        FROM conversations c JOIN channel_contacts cc ON cc.contact_id = c.contact_id ORDER BY 1`,
      ),
      events: await sql(
        t,
        `SELECT coalesce(payload->>'id', (payload->>'user') || ' ' || (payload->>'status')) AS event,
        processed_at IS NOT NULL AS done, last_error FROM inbound_events WHERE payload->>'id' IS DISTINCT FROM 'm_poison' ORDER BY id`,
      ),
      outbox: await runtime.db.asSystem((tx) =>
        tx.query('SELECT type, count(*)::int AS n FROM outbox WHERE organization_id = $1 GROUP BY type ORDER BY type', [t.ctx.organizationId]),
      ),
    });
    const transactions = async (t: TestTenant) => (await sql(t, "SELECT DISTINCT xmin::text FROM messages WHERE external_id NOT IN ('m_old', 'out-1')")).length;
    const batched = await withPage();
    await mixedBatch(batched.t, batched.pageId, batched.channelId, 8);
    await processor().processDue(1000);
    const single = await withPage();
    await mixedBatch(single.t, single.pageId, single.channelId, 8);
    await storePoison(single.t, single.channelId, 'm_poison', 'u'.repeat(400));
    await processor().processDue(1000);
    // 27 events: one batch for the first organization; the poison sent the second's one at a time.
    expect(await transactions(batched.t)).toBe(1);
    expect(await transactions(single.t)).toBe(8 * 2 + 3);
    const [a, b] = [await snapshot(batched.t), await snapshot(single.t)];
    expect(a.messages).toHaveLength(8 * 2 + 5);
    expect(b).toEqual(a);
  });

  it('should not let a poison event block or undo the others of its batch, and settle it after its last attempt', async () => {
    const { t, pageId, channelId } = await withPage();
    const good = Array.from({ length: 20 }, (_v, i) => msg(`p${i % 5}`, `m_good_${i}`, `n${i}`));
    await meta.send(metaBody('page', pageId, good.slice(0, 10)));
    await storePoison(t, channelId, 'm_poison', 'u'.repeat(400));
    await storePoison(t, channelId, 'm_poison_2', undefined); // its customer missing altogether
    await meta.send(metaBody('page', pageId, good.slice(10)));
    expect(await processor().processDue()).toBe(20);
    const stored = await sql<{ external_id: string }>(t, 'SELECT external_id FROM messages ORDER BY created_at, id');
    expect(stored.map((m) => m.external_id).sort()).toEqual(good.map((g) => g.message.mid).sort());
    for (let attempt = 2; attempt <= 8; attempt++) {
      await dueNow(t);
      expect(await processor().processDue()).toBe(0);
    }
    const left = await sql<{ processed_at: Date | null; attempts: number; last_error: string }>(
      t,
      "SELECT processed_at, attempts, last_error FROM inbound_events WHERE payload->>'id' LIKE 'm_poison%' ORDER BY id",
    );
    expect(left.map((e) => e.attempts)).toEqual([8, 8]);
    expect(left.every((e) => e.processed_at !== null)).toBe(true);
    expect(left[0].last_error).toMatch(/check constraint/);
    expect(left[1].last_error).toMatch(/null value/);
    expect(await sql(t, 'SELECT 1 FROM messages')).toHaveLength(20);
  });

  it("should open each conversation's window from its latest customer message of the batch, in the upsert, and never move it back", async () => {
    const { t, pageId } = await withPage();
    const hour = 3_600_000;
    const base = Math.floor(Date.now() / 1000) * 1000 - 6 * hour;
    const at = (hours: number) => new Date(base + hours * hour);
    const wrote = (psid: string, mid: string, hours: number) => ({ ...msg(psid, mid, mid), timestamp: at(hours).getTime() });
    const windows = async () => {
      const rows = await sql<{ customer: string; last: Date | null; closes: Date | null }>(
        t,
        `SELECT cc.external_user_id AS customer,
        c.last_customer_message_at AS last, c.window_closes_at AS closes FROM conversations c JOIN channel_contacts cc ON cc.contact_id = c.contact_id`,
      );
      return Object.fromEntries(rows.map((r) => [r.customer, [r.last?.getTime(), r.closes?.getTime()]]));
    };
    const pass = async (events: object[]) => {
      await meta.send(metaBody('page', pageId, events));
      await dueNow(t);
      await processor().processDue(100);
    };
    await pass([wrote('w', 'w1', 1)]);
    expect(await windows()).toEqual({ w: [at(1).getTime(), at(25).getTime()] });
    // The latest of the batch, not the last given; a new conversation opens its window on insert.
    await pass([wrote('w', 'w3', 3), wrote('w', 'w2', 2), wrote('n', 'n1', 4)]);
    expect(await windows()).toEqual({ w: [at(3).getTime(), at(27).getTime()], n: [at(4).getTime(), at(28).getTime()] });
    // A message that arrives late, and our own echo, move nothing.
    await pass([wrote('w', 'w0', 0), echo(pageId, 'n', 'n_echo', 'from the page inbox')]);
    await dueNow(t);
    await processor().processDue(100); // the echo's second try
    expect(await sql(t, "SELECT count(*)::int AS n FROM messages WHERE external_id IN ('w0', 'n_echo')")).toEqual([{ n: 2 }]);
    expect(await windows()).toEqual({ w: [at(3).getTime(), at(27).getTime()], n: [at(4).getTime(), at(28).getTime()] });
  });
});
