import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { InboundProcessor } from '../../inbound/inbound-processor';
import { inboundChannel, startInboundTestApp } from '../../testing/inbound-test-app';
import { RecordMessageOrigins1763800003050 } from './0050-record-message-origins';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, runtime, close } = await startInboundTestApp());
});
afterAll(() => close());

const sql = <T = Record<string, unknown>>(tenant: TestTenant, text: string, params: unknown[] = []) =>
  runtime.db.inTenant(tenant.ctx, (tx) => tx.query<T>(text, params));
const hasOrigin = async () =>
  (await runtime.db.systemQuery(`SELECT 1 FROM information_schema.columns WHERE table_name = 'messages' AND column_name = 'origin'`)).length > 0;
const migrate = async (direction: 'up' | 'down') => {
  const runner = runtime.dataSource.createQueryRunner();
  try {
    await new RecordMessageOrigins1763800003050()[direction](runner);
  } finally {
    await runner.release();
  }
};

// A chat-app conversation in which the customer wrote once (through the inbound path).
async function conversation() {
  const { tenant, id, post } = await inboundChannel(app);
  expect((await post({ type: 'message', id: `in-${randomUUID()}`, from: '201005550301', text: 'hello' })).statusCode).toBe(200);
  expect(await new InboundProcessor(runtime.db, app.get(ContactService), undefined, 1).processDue()).toBe(1);
  const [row] = await sql<{ id: string; contact_id: string; first: string }>(
    tenant,
    'SELECT id, contact_id, (SELECT id FROM messages) AS first FROM conversations',
  );
  return { tenant, channelId: id, conversationId: row.id, contactId: row.contact_id, first: row.first };
}
type Conversation = Awaited<ReturnType<typeof conversation>>;

// A message of the conversation, `minutes` after 2026-03-01 09:00Z; `columns` adds origin and origin_id
// (after the migration) or leaves them out (before it).
const insert = async (c: Conversation, direction: 'INBOUND' | 'OUTBOUND', minutes: number, metadata: object, columns: Record<string, unknown> = {}) => {
  const names = Object.keys(columns);
  const [row] = await sql<{ id: string }>(
    c.tenant,
    `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, metadata, created_at
                           ${names.map((n) => `, ${n}`).join('')})
     VALUES (app_org_id(), $1, $2, $3, $4, $5, 'x', $6, timestamptz '2026-03-01 09:00:00+00' + make_interval(mins => $7)
             ${names.map((_n, i) => `, $${8 + i}`).join('')})
     RETURNING id`,
    [
      c.conversationId,
      c.contactId,
      c.channelId,
      direction,
      direction === 'INBOUND' ? 'DELIVERED' : 'SENT',
      JSON.stringify(metadata),
      minutes,
      ...Object.values(columns),
    ],
  );
  return row.id;
};
const originsOf = async (c: Conversation) =>
  Object.fromEntries(
    (await sql<{ id: string; origin: string; origin_id: string | null }>(c.tenant, 'SELECT id, origin, origin_id FROM messages')).map((m) => [
      m.id,
      [m.origin, m.origin_id],
    ]),
  );
const firstReplyOf = async (c: Conversation, id: string) =>
  (await sql<{ first_reply_at: Date | null }>(c.tenant, 'SELECT first_reply_at FROM messages WHERE id = $1', [id]))[0].first_reply_at?.toISOString() ?? null;

describe('messages.origin (0050-record-message-origins)', () => {
  it('should refuse an unknown origin, a customer’s outbound message, a source on an agent’s message, and a message that names no origin', async () => {
    const c = await conversation();
    await expect(insert(c, 'OUTBOUND', 1, {}, { origin: 'robot' })).rejects.toThrow(/messages_origin_known/);
    await expect(insert(c, 'OUTBOUND', 1, {}, { origin: 'customer' })).rejects.toThrow(/messages_origin_direction/);
    await expect(insert(c, 'INBOUND', 1, {}, { origin: 'agent' })).rejects.toThrow(/messages_origin_direction/);
    await expect(insert(c, 'OUTBOUND', 1, {}, { origin: 'agent', origin_id: randomUUID() })).rejects.toThrow(/messages_origin_id_applies/);
    // No default: every writer says who wrote its message.
    await expect(insert(c, 'OUTBOUND', 1, {})).rejects.toThrow(/origin.*not-null|null value in column "origin"/);
    const nudge = randomUUID();
    const id = await insert(c, 'OUTBOUND', 1, {}, { origin: 'reengagement', origin_id: nudge });
    expect((await originsOf(c))[id]).toEqual(['reengagement', nudge]);
  });

  it('should set the origin of rows written before it from the keys their writers left, then read origin in the triggers and views', async () => {
    const c = await conversation();
    const nudge = randomUUID();
    const broadcast = randomUUID();
    // Written (in another organization) after the migration, with origin only: down puts the old
    // keys back, up reads them again.
    const d = await conversation();
    const laterNudge = randomUUID();
    const later = {
      nudge: await insert(d, 'OUTBOUND', 1, {}, { origin: 'reengagement', origin_id: laterNudge }),
      broadcast: await insert(d, 'OUTBOUND', 2, {}, { origin: 'broadcast', origin_id: broadcast }),
      unnamed: await insert(d, 'OUTBOUND', 3, {}, { origin: 'broadcast' }),
      rule: await insert(d, 'OUTBOUND', 4, {}, { origin: 'rule', origin_id: randomUUID() }),
    };
    await migrate('down');
    let old: Record<string, string>;
    try {
      expect(await hasOrigin()).toBe(false);
      // Rows as the old writers left them: 09:00 the customer, answered first by a nudge at 09:01
      // (the old triggers count it as the reply), then through chat-lite-send at 09:10.
      old = {
        customer: await insert(c, 'INBOUND', 0, { sender_name: 'Omar', inbound_event_id: '1' }),
        nudge: await insert(c, 'OUTBOUND', 1, { reengagement_nudge_id: nudge, window: 'free_form' }),
        badNudge: await insert(c, 'OUTBOUND', 2, { reengagement_nudge_id: 'n-1' }),
        broadcast: await insert(c, 'OUTBOUND', 3, { broadcast_id: broadcast }),
        badBroadcast: await insert(c, 'OUTBOUND', 4, { broadcast_id: 'b-7' }),
        campaign: await insert(c, 'OUTBOUND', 5, { campaign_id: 'c-42' }),
        marked: await insert(c, 'OUTBOUND', 6, { broadcast: true }),
        chatLiteSend: await insert(c, 'OUTBOUND', 10, { random_string: 0, sender_name: 'Support' }),
        crossChannel: await insert(c, 'OUTBOUND', 11, { random_string: 0, cross_channel: { responseChannelId: c.channelId } }),
        inboxReply: await insert(c, 'OUTBOUND', 12, { random_string: 0 }),
        metaReply: await insert(c, 'OUTBOUND', 13, { window: 'free_form', send_id: randomUUID(), sender_user_id: randomUUID() }),
        echo: await insert(c, 'OUTBOUND', 14, { echo: true }),
      };
      expect(await firstReplyOf(c, old.customer)).toBe('2026-03-01T09:01:00.000Z');
      const [keys] = await sql<{ nudge: unknown; broadcast: unknown; unnamed: unknown }>(
        d.tenant,
        `SELECT (SELECT metadata FROM messages WHERE id = $1) AS nudge, (SELECT metadata FROM messages WHERE id = $2) AS broadcast,
                (SELECT metadata FROM messages WHERE id = $3) AS unnamed`,
        [later.nudge, later.broadcast, later.unnamed],
      );
      expect(keys).toEqual({
        nudge: { reengagement_nudge_id: laterNudge },
        broadcast: { broadcast_id: broadcast, broadcast: true },
        unnamed: { broadcast: true },
      });
      await migrate('up');
    } catch (error) {
      // Leave the schema as the other tests of this database expect it.
      if (!(await hasOrigin())) await migrate('up');
      throw error;
    }
    expect(await originsOf(c)).toEqual({
      [old.customer]: ['customer', null],
      [old.nudge]: ['reengagement', nudge],
      [old.badNudge]: ['reengagement', null],
      [old.broadcast]: ['broadcast', broadcast],
      [old.badBroadcast]: ['broadcast', null],
      [old.campaign]: ['broadcast', null],
      [old.marked]: ['broadcast', null],
      [old.chatLiteSend]: ['api', null],
      [old.crossChannel]: ['api', null],
      [old.inboxReply]: ['agent', null],
      [old.metaReply]: ['agent', null],
      [old.echo]: ['agent', null],
      [c.first]: ['customer', null],
    });
    expect(await originsOf(d)).toMatchObject({
      [later.nudge]: ['reengagement', laterNudge],
      [later.broadcast]: ['broadcast', broadcast],
      [later.unnamed]: ['broadcast', null],
      // A rule's message has no key of its own before: it reads as an agent's.
      [later.rule]: ['agent', null],
    });
    // The nudge no longer answers the customer: the chat-lite-send at 09:10 does.
    expect(await firstReplyOf(c, old.customer)).toBe('2026-03-01T09:10:00.000Z');
    const facts = await sql<{ id: string; sender_type: string }>(c.tenant, 'SELECT id, sender_type FROM messaging_message_facts WHERE id = ANY($1)', [
      [old.customer, old.nudge, old.broadcast, old.chatLiteSend, old.inboxReply],
    ]);
    expect(Object.fromEntries(facts.map((f) => [f.id, f.sender_type]))).toEqual({
      [old.customer]: 'customer',
      [old.nudge]: 'automation',
      [old.broadcast]: 'automation',
      [old.chatLiteSend]: 'agent',
      [old.inboxReply]: 'agent',
    });

    // New rows: a customer message at 10:00 answered by a bot, then by a scheduled send; the
    // scheduled one is its first reply, and its failure moves the reply to the agent's at 10:30.
    const customer = await insert(c, 'INBOUND', 60, {}, { origin: 'customer' });
    await insert(c, 'OUTBOUND', 61, {}, { origin: 'bot', origin_id: randomUUID() });
    const scheduled = await insert(c, 'OUTBOUND', 75, {}, { origin: 'scheduled', origin_id: randomUUID() });
    await insert(c, 'OUTBOUND', 90, {}, { origin: 'agent' });
    expect(await firstReplyOf(c, customer)).toBe('2026-03-01T10:15:00.000Z');
    await runtime.db.asSystem((tx) => tx.query(`UPDATE messages SET status = 'FAILED' WHERE id = $1`, [scheduled]));
    expect(await firstReplyOf(c, customer)).toBe('2026-03-01T10:30:00.000Z');
  });

  it('should tell re-engagement the business answered unless its only message since the customer’s is a nudge', async () => {
    const c = await conversation();
    const answered = async () =>
      (await sql<{ answered_since_customer: boolean }>(c.tenant, 'SELECT answered_since_customer FROM conversation_reply_windows'))[0].answered_since_customer;
    // Rows a minute after the customer's message (stored now by the inbound path).
    const after = async (origin: string, originId: string | null) =>
      sql(
        c.tenant,
        `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, origin, origin_id, created_at)
         VALUES (app_org_id(), $1, $2, $3, 'OUTBOUND', 'SENT', 'x', $4, $5, now() + interval '1 minute')`,
        [c.conversationId, c.contactId, c.channelId, origin, originId],
      );
    await after('reengagement', randomUUID());
    expect(await answered()).toBe(false);
    await after('rule', randomUUID());
    expect(await answered()).toBe(true);
  });
});
