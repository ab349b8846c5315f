import { randomUUID } from 'node:crypto';
import { ContactService } from '@engage/crm';
import type { TestTenant } from '@engage/identity/testing';
import type { MessageOrigin } from '../domain/message-origin';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';
import { UNPACED_PACING } from '../testing/unpaced';
import { OutboundDispatcher } from './dispatcher';
import { OutboundQueueWorker } from './queue.worker';
import { withdrawQueued } from './withdraw-queued';

let chat: ChatLiteTestApp;
beforeAll(async () => {
  chat = await startChatLiteTestApp();
});
afterAll(() => chat.close());

async function account(t: TestTenant): Promise<string> {
  const res = await chat.app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: t.key,
    payload: { kind: 'chat_app', name: 'Line' },
  });
  const id = res.json().channel_account.id as string;
  await chat.runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [id, JSON.stringify(UNPACED_PACING)]);
  return id;
}

async function queue(t: TestTenant, channelAccountId: string, origin: MessageOrigin, originId: string) {
  const phone = chat.newNumber();
  const contact = await chat.app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [`+${phone}`] });
  const queued = await chat.app
    .get(OutboundDispatcher)
    .enqueue(t.ctx, { channelAccountId, contactId: contact.id }, { message: 'Spring sale', mediaUrls: [], author: { origin, originId } });
  return { id: queued.messageIds[0], phone };
}

describe('withdrawing queued messages', () => {
  it("should fail only the origin's messages still QUEUED, with message.failed, and the queue sends the rest", async () => {
    const t = await chat.newTenant();
    const line = await account(t);
    const broadcast = randomUUID();
    const mine = [await queue(t, line, 'broadcast', broadcast), await queue(t, line, 'broadcast', broadcast), await queue(t, line, 'broadcast', broadcast)];
    const other = await queue(t, line, 'broadcast', randomUUID());
    // One of them the queue took already (PENDING, its provider call under way): not withdrawn.
    await chat.runtime.db.systemQuery(`UPDATE messages SET status = 'PENDING' WHERE id = $1`, [mine[0].id]);

    const withdrawn = await chat.runtime.db.inTenant(t.ctx, (tx) =>
      withdrawQueued(tx, t.ctx, { channelAccountId: line, origin: 'broadcast', originId: broadcast }, 'withdrawn: paused'),
    );
    expect(withdrawn.map((m) => m.id).sort()).toEqual([mine[1].id, mine[2].id].sort());
    expect(withdrawn.map((m) => [m.status, m.error, m.metadata.withdrawn])).toEqual(Array(2).fill(['FAILED', 'withdrawn: paused', true]));
    const events = await chat.runtime.db.systemQuery<{ aggregate_id: string; payload: { reason: string; from_status: string } }>(
      `SELECT aggregate_id, payload FROM outbox WHERE type = 'message.failed' AND aggregate_id = ANY ($1::text[])`,
      [withdrawn.map((m) => m.id)],
    );
    expect(events.map((e) => [e.payload.from_status, e.payload.reason])).toEqual(Array(2).fill(['QUEUED', 'withdrawn']));
    // A second withdrawal finds nothing; the queue sends only the other origin's message.
    expect(
      await chat.runtime.db.inTenant(t.ctx, (tx) => withdrawQueued(tx, t.ctx, { channelAccountId: line, origin: 'broadcast', originId: broadcast }, 'again')),
    ).toEqual([]);
    const before = chat.provider.calls.length;
    while (await chat.app.get(OutboundQueueWorker).sendOn(line));
    const sentTo = chat.provider.calls.slice(before).flatMap((call) => call.body.UOWCHAT.receivers.map((r) => r.mobileNum));
    expect(sentTo).toEqual([other.phone]);
  });
});
