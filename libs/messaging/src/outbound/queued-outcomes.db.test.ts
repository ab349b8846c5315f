import { randomUUID } from 'node:crypto';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';
import { OutboundDispatcher } from './dispatcher';
import type { Attempt } from './finish-send';
import { QueuedOutcomes } from './queued-outcomes';

let chat: ChatLiteTestApp;

beforeAll(async () => {
  chat = await startChatLiteTestApp();
});
afterAll(() => chat.close());

// Queued messages on two accounts of the tenant, the first `pending` of each taken (PENDING) as the
// queue takes them before their provider call.
async function queuedOnTwoAccounts(t: TestTenant, perAccount: number, pending: number): Promise<string[][]> {
  const lists: string[][] = [];
  for (const name of ['One', 'Two']) {
    const res = await chat.app.inject({ method: 'POST', url: '/functions/v1/messaging/channel-accounts', headers: t.key, payload: { kind: 'chat_app', name } });
    const accountId = res.json().channel_account.id as string;
    const ids: string[] = [];
    for (let i = 0; i < perAccount; i++) {
      const contact = await chat.app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [`+${chat.newNumber()}`] });
      const send = { message: `${name} ${i}`, mediaUrls: [], author: { origin: 'api_queued' as const, originId: randomUUID() } };
      ids.push(...(await chat.app.get(OutboundDispatcher).enqueue(t.ctx, { channelAccountId: accountId, contactId: contact.id }, send)).messageIds);
    }
    await chat.runtime.db.systemQuery("UPDATE messages SET status = 'PENDING', dispatched_at = now() WHERE id = ANY($1::uuid[])", [ids.slice(0, pending)]);
    lists.push(ids);
  }
  return lists;
}

const sent = (externalId: string): Attempt => ({ result: { status: true, message: 'Message sent', externalId, raw: {} }, error: null });
const refused: Attempt = { result: null, error: 'gateway down' };

const statuses = (t: TestTenant, ids: string[]) =>
  chat.rows<{ id: string; status: string; external_id: string | null }>(t, 'SELECT id, status, external_id FROM messages WHERE id = ANY($1::uuid[])', [ids]);

describe('the paced queue records calls of several accounts together', () => {
  it('should record the calls that end together in one transaction, each outcome with its event once, and answer each caller its next messages', async () => {
    const t = await chat.newTenant();
    const [one, two] = await queuedOnTwoAccounts(t, 3, 1);
    const outcomes = new QueuedOutcomes(chat.runtime.db);
    const at = new Date();
    const [nextOne, nextTwo] = await Promise.all([
      outcomes.write(t.ctx, { ids: [one[0]], attempt: sent('one-0'), take: [one[1], one[2]], at }),
      outcomes.write(t.ctx, { ids: [two[0]], attempt: refused, take: [two[2]], at }),
    ]);
    expect(nextOne.map((m) => m.id)).toEqual([one[1], one[2]]);
    expect(nextTwo.map((m) => m.id)).toEqual([two[2]]);
    const rows = new Map((await statuses(t, [...one, ...two])).map((r) => [r.id, r]));
    expect([...one, ...two].map((id) => rows.get(id)!.status)).toEqual(['SENT', 'PENDING', 'PENDING', 'FAILED', 'QUEUED', 'PENDING']);
    expect(rows.get(one[0])!.external_id).toBe('one-0');
    const events = await chat.runtime.db.systemQuery<{ type: string; aggregate_id: string; xid: string }>(
      "SELECT type, aggregate_id, xmin::text AS xid FROM outbox WHERE organization_id = $1 AND type IN ('message.sent', 'message.failed') ORDER BY seq",
      [t.ctx.organizationId],
    );
    expect(events.map((e) => [e.type, e.aggregate_id])).toEqual([
      ['message.sent', one[0]],
      ['message.failed', two[0]],
    ]);
    expect(new Set(events.map((e) => e.xid)).size).toBe(1);

    // Recorded again (a repeated write): nothing changes and no second event.
    await outcomes.write(t.ctx, { ids: [one[0]], attempt: sent('one-0'), take: [], at });
    const again = await chat.runtime.db.systemQuery('SELECT 1 FROM outbox WHERE organization_id = $1 AND aggregate_id = $2', [t.ctx.organizationId, one[0]]);
    expect(again).toHaveLength(1);
  });

  it('should fail only the caller whose record cannot be written, and write the others', async () => {
    const t = await chat.newTenant();
    const [one, two] = await queuedOnTwoAccounts(t, 2, 1);
    const outcomes = new QueuedOutcomes(chat.runtime.db);
    const at = new Date();
    const [good, bad] = await Promise.allSettled([
      outcomes.write(t.ctx, { ids: [one[0]], attempt: sent('good-0'), take: [one[1]], at }),
      outcomes.write(t.ctx, { ids: [two[0]], attempt: sent('bad-0'), take: ['not-a-message-id'], at }),
    ]);
    expect(good).toEqual({ status: 'fulfilled', value: [expect.objectContaining({ id: one[1], status: 'PENDING' })] });
    expect(bad.status).toBe('rejected');
    const rows = new Map((await statuses(t, [...one, ...two])).map((r) => [r.id, r.status]));
    expect([...one, ...two].map((id) => rows.get(id))).toEqual(['SENT', 'PENDING', 'PENDING', 'QUEUED']);
  });
});
