import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { INBOUND_SEEN_BATCH, MESSAGES_BY_EXTERNAL_IDS } from './inbound-batch.sql';
import { inboundChannel, startInboundTestApp } from '../testing/inbound-test-app';
import { InboundProcessor } from './inbound-processor';

let app: NestFastifyApplication;
let runtime: PlatformRuntime;
let close: () => Promise<void>;

// No inbound worker runs: the test drives the processor itself.
beforeAll(async () => {
  ({ app, runtime, close } = await startInboundTestApp());
});
afterAll(() => close());

async function channel(): Promise<{ tenant: TestTenant; id: string; post: (payload: object) => Promise<void> }> {
  const { tenant, id, post: send } = await inboundChannel(app);
  const post = async (payload: object) => expect((await send(payload)).statusCode).toBe(200);
  return { tenant, id, post };
}

const processor = () => new InboundProcessor(runtime.db, app.get(ContactService), undefined, 1);
const sql = <T = Record<string, unknown>>(tenant: TestTenant, text: string, params: unknown[] = []) =>
  runtime.db.inTenant(tenant.ctx, (tx) => tx.query<T>(text, params));
const outbox = (tenant: TestTenant) =>
  runtime.db.asSystem((tx) =>
    tx.query<{ type: string; payload: Record<string, unknown> }>('SELECT type, payload FROM outbox WHERE organization_id = $1 ORDER BY seq', [
      tenant.ctx.organizationId,
    ]),
  );

describe('inbound message batches', () => {
  it('should store a batch in one transaction with the same outcome as one event at a time', async () => {
    const { tenant, id, post } = await channel();
    const [a, b, c] = ['201005550101', '201005550102', '201005550103'];
    // Before the batch: B has a snoozed conversation, C a conversation whose last outbound message
    // is a broadcast's, and provider id "old" is already stored.
    await post({ type: 'message', id: 'old', from: b, text: 'earlier' });
    await post({ type: 'message', id: 'c0', from: c, text: 'earlier' });
    expect(await processor().processDue()).toBe(2);
    const [cConversation] = await sql<{ id: string; contact_id: string }>(
      tenant,
      "SELECT c.id, c.contact_id FROM conversations c JOIN messages m ON m.conversation_id = c.id WHERE m.external_id = 'c0'",
    );
    const broadcastId = randomUUID();
    await sql(
      tenant,
      `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, external_id, origin, origin_id)
      VALUES (app_org_id(), $1, $2, $3, 'OUTBOUND', 'SENT', 'Sale', 'bc-1', 'broadcast', $4)`,
      [cConversation.id, cConversation.contact_id, id, broadcastId],
    );
    await sql(tenant, "UPDATE conversations SET status = 'SNOOZED', snoozed_until = now() + interval '1 day' WHERE id <> $1", [cConversation.id]);
    const before = (await outbox(tenant)).length;

    await post({ type: 'message', id: 'a1', from: a, name: 'Ann', text: 'one' });
    await post({ type: 'message', id: 'b1', from: `${b}@s.chat.example`, text: 'wake up' });
    await post({ type: 'message', id: 'a2', from: `+${a}`, text: 'two' });
    await post({ type: 'message', id: 'old', from: b, text: 'again' }); // stored before
    await post({ type: 'message', id: 'c1', from: c, text: 'I want it' });
    await post({ type: 'message', id: 'a2', from: a, text: 'two, again' }); // twice in the batch
    await post({ type: 'message', id: 'x1', from: '+999 123456', text: '?' });
    await post({ type: 'message', id: 'a3', from: a, text: 'three' });
    await processor().processDue();

    const stored = await sql<{ external_id: string; content: string; tx: string; origin: string }>(
      tenant,
      "SELECT external_id, content, xmin::text AS tx, origin FROM messages WHERE external_id IN ('a1','a2','a3','b1','c1') ORDER BY created_at, id",
    );
    expect(stored.map((m) => m.origin)).toEqual(Array(5).fill('customer'));
    // One transaction for all five, a sender's messages in the order they came.
    expect(new Set(stored.map((m) => m.tx)).size).toBe(1);
    expect(stored.map((m) => m.external_id).filter((x) => x.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(stored.find((m) => m.external_id === 'a2')?.content).toBe('two');
    expect(await sql(tenant, "SELECT count(*)::int AS n FROM messages WHERE external_id = 'old'")).toEqual([{ n: 1 }]);
    const conversations = await sql<{ phone: string; status: string; unread_count: number }>(
      tenant,
      'SELECT ct.phones[1] AS phone, c.status, c.unread_count FROM conversations c JOIN contacts ct ON ct.id = c.contact_id ORDER BY 1',
    );
    expect(conversations).toEqual([
      { phone: `+${a}`, status: 'OPEN', unread_count: 3 },
      { phone: `+${b}`, status: 'OPEN', unread_count: 2 },
      { phone: `+${c}`, status: 'OPEN', unread_count: 2 },
    ]);
    // The customers wrote in this batch's transaction: each conversation says so (no provider window here).
    const written = await sql<{ same: boolean; window: string | null }>(
      tenant,
      `SELECT c.last_customer_message_at = (SELECT min(created_at) FROM messages WHERE external_id IN ('a1','a2','a3','b1','c1')) AS same,
              c.window_closes_at AS window FROM conversations c`,
    );
    expect(written).toEqual([
      { same: true, window: null },
      { same: true, window: null },
      { same: true, window: null },
    ]);
    const events = (await outbox(tenant)).slice(before);
    expect(
      events
        .filter((e) => e.type === 'message.received')
        .map((e) => (e.payload.message as { external_id: string }).external_id)
        .sort(),
    ).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
    expect(events.filter((e) => e.type === 'conversation.created')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'conversation.status.changed').map((e) => e.payload)).toEqual([
      expect.objectContaining({ from_status: 'SNOOZED', to_status: 'OPEN' }),
    ]);
    // The reply to the broadcast's message names it (campaigns decide whether it is a response).
    expect(events.filter((e) => e.type === 'message.received' && e.payload.replied_to).map((e) => e.payload)).toEqual([
      expect.objectContaining({
        channel_kind: 'chat_app',
        replied_to: expect.objectContaining({ origin: 'broadcast', origin_id: broadcastId }),
        message: expect.objectContaining({ external_id: 'c1' }),
      }),
    ]);
    expect(events.filter((e) => e.type === 'broadcast.response')).toEqual([]);
    expect(events.filter((e) => e.type === 'contact.created')).toHaveLength(1);
    const outcome = await sql<{ id: string; attempts: number; processed: boolean; last_error: string | null }>(
      tenant,
      "SELECT payload->>'id' AS id, attempts, processed_at IS NOT NULL AS processed, last_error FROM inbound_events WHERE attempts > 0 AND received_at > (SELECT max(received_at) FROM inbound_events WHERE payload->>'id' = 'c0') ORDER BY payload->>'id', inbound_events.id",
    );
    expect(outcome).toEqual([
      { id: 'a1', attempts: 1, processed: true, last_error: null },
      { id: 'a2', attempts: 1, processed: true, last_error: null },
      { id: 'a2', attempts: 1, processed: true, last_error: 'duplicate of provider message a2' },
      { id: 'a3', attempts: 1, processed: true, last_error: null },
      { id: 'b1', attempts: 1, processed: true, last_error: null },
      { id: 'c1', attempts: 1, processed: true, last_error: null },
      { id: 'old', attempts: 1, processed: true, last_error: 'duplicate of provider message old' },
      // Not a phone: taken out of the batch, tried alone, kept for a retry like any failure.
      { id: 'x1', attempts: 1, processed: false, last_error: '"+999 123456" is not a valid phone number' },
    ]);
  });

  it('should fall back to one event at a time when the batch fails, so only the failing event waits', async () => {
    const { tenant, post } = await channel();
    // The database refuses one of the messages (a check this test adds on its own tenant).
    const guard = `messages_refuse_${tenant.ctx.organizationId.replace(/-/g, '')}`;
    await runtime.db.systemQuery(
      `ALTER TABLE messages ADD CONSTRAINT ${guard} CHECK (organization_id <> '${tenant.ctx.organizationId}' OR content <> 'refused')`,
    );
    try {
      await post({ type: 'message', id: 'f1', from: '201005550201', text: 'fine' });
      await post({ type: 'message', id: 'f2', from: '201005550202', text: 'refused' });
      await post({ type: 'message', id: 'f3', from: '201005550201', text: 'fine too' });
      await processor().processDue();
    } finally {
      await runtime.db.systemQuery(`ALTER TABLE messages DROP CONSTRAINT ${guard}`);
    }
    const stored = await sql<{ external_id: string; tx: string }>(tenant, 'SELECT external_id, xmin::text AS tx FROM messages ORDER BY created_at');
    expect(stored.map((m) => m.external_id)).toEqual(['f1', 'f3']);
    const events = await sql(
      tenant,
      "SELECT payload->>'id' AS id, attempts, processed_at IS NOT NULL AS processed, last_error IS NOT NULL AS failed FROM inbound_events ORDER BY id",
    );
    expect(events).toEqual([
      { id: 'f1', attempts: 1, processed: true, failed: false },
      { id: 'f2', attempts: 1, processed: false, failed: true },
      { id: 'f3', attempts: 1, processed: true, failed: false },
    ]);
    expect((await outbox(tenant)).filter((e) => e.type === 'message.received')).toHaveLength(2);
    // One at a time too, the conversation keeps when its customer last wrote: f3's transaction.
    const [conversation] = await sql<{ same: boolean }>(
      tenant,
      `SELECT c.last_customer_message_at = m.created_at AS same FROM conversations c JOIN messages m ON m.conversation_id = c.id WHERE m.external_id = 'f3'`,
    );
    expect(conversation).toEqual({ same: true });
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];

describe('inbound batch look-ups by provider id', () => {
  it('should probe the provider-id index once per id, never scan the organization’s messages, when statistics are from when it had few', async () => {
    const { tenant, id, post } = await channel();
    await post({ type: 'message', id: 'first', from: '201005550201', text: 'hello' });
    expect(await processor().processDue()).toBe(1);
    await runtime.db.asSystem((tx) => tx.query('ANALYZE messages'));
    // Then many messages and no fresh statistics: the organization's first busy minutes. Stored as
    // the system, without a tenant's statement timeout: with statistics of one row, each row's
    // first-reply trigger scans the rows stored before it, seconds on a loaded machine.
    await runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, external_id, origin)
        SELECT m.organization_id, m.conversation_id, m.contact_id, m.channel_account_id, 'INBOUND', 'DELIVERED', 'x', 'bulk.' || n, 'customer'
        FROM messages m, generate_series(1, 5000) n WHERE m.organization_id = $1 AND m.external_id = 'first'`,
        [tenant.ctx.organizationId],
      ),
    );
    const ids = Array.from({ length: 50 }, (_, i) => `bulk.${4990 + i}`); // 11 stored, 39 not
    for (const query of [INBOUND_SEEN_BATCH, MESSAGES_BY_EXTERNAL_IDS]) {
      const params = [ids.map(() => id), ids];
      const [found, plan] = await runtime.db.inTenant(
        tenant.ctx,
        async (tx) =>
          [
            await tx.query(query, params),
            (await tx.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${query}`, params))[0]['QUERY PLAN'][0].Plan,
          ] as const,
      );
      expect(found).toHaveLength(11);
      const nodes = flatten(plan);
      expect(nodes.filter((n) => n['Relation Name']).map((n) => `${n['Relation Name']} ${n['Index Name']}`)).toEqual(['messages messages_external_id_idx']);
      expect(nodes.some((n) => /Hash|Bitmap|Seq Scan/.test(n['Node Type']))).toBe(false);
    }
  });
});
