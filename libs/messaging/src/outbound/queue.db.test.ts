import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ContactService } from '@engage/crm';
import { OrganizationSettings } from '@engage/identity';
import type { TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { PendingSendSweeper } from './pending-send.sweeper';
import type { MessageOrigin } from '../domain/message-origin';
import { type ChatLiteTestApp, startChatLiteTestApp } from '../testing/chat-lite-test-app';
import { UNPACED_PACING } from '../testing/unpaced';
import { OutboundDispatcher } from './dispatcher';
import { OutboundQueueWorker, OutboundSignal } from './queue.worker';

let chat: ChatLiteTestApp;
let app: NestFastifyApplication;
let runtime: PlatformRuntime;

beforeAll(async () => {
  chat = await startChatLiteTestApp();
  ({ app, runtime } = chat);
});
afterAll(() => chat.close());

async function account(t: TestTenant, pacing: object = UNPACED_PACING): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: t.key,
    payload: { kind: 'chat_app', name: 'Line' },
  });
  expect(res.statusCode).toBe(201);
  const id = res.json().channel_account.id as string;
  await runtime.db.systemQuery('UPDATE channel_accounts SET pacing = $2 WHERE id = $1', [id, JSON.stringify(pacing)]);
  return id;
}

async function contact(t: TestTenant) {
  const phone = chat.newNumber();
  const created = await app.get(ContactService).create(t.ctx, { first_name: 'Ola', phones: [`+${phone}`] });
  return { id: created.id, phone };
}

const queue = (t: TestTenant, channelAccountId: string, contactId: string, text: string, origin: MessageOrigin, originId: string | null = randomUUID()) =>
  app.get(OutboundDispatcher).enqueue(t.ctx, { channelAccountId, contactId }, { message: text, mediaUrls: [], author: { origin, originId } });

// Sends on the account until the pacing or the queue says no more; answers the provider calls made
// (an account without a gap sends several messages one after another per look).
async function drain(worker: OutboundQueueWorker, accountId: string): Promise<number> {
  const before = chat.provider.calls.length;
  while (await worker.sendOn(accountId));
  return chat.provider.calls.length - before;
}

const statusOf = async (t: TestTenant, ids: string[]) =>
  (await chat.rows<{ status: string }>(t, 'SELECT status FROM messages WHERE id = ANY($1::uuid[]) ORDER BY created_at', [ids])).map((r) => r.status);

describe('the paced send queue', () => {
  it('should store a queued message QUEUED with its expected time, then send it once through the adapter with its origin', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const to = await contact(t);
    const broadcast = randomUUID();
    const queued = await queue(t, id, to.id, 'Sale!', 'broadcast', broadcast);
    expect(queued.messages).toEqual([
      expect.objectContaining({ status: 'QUEUED', origin: 'broadcast', origin_id: broadcast, scheduled_for: expect.any(String) }),
    ]);
    expect(chat.provider.callsTo(to.phone)).toHaveLength(0);

    const worker = app.get(OutboundQueueWorker);
    expect(await drain(worker, id)).toBe(1);
    expect(chat.provider.callsTo(to.phone).map((c) => c.body.UOWCHAT.message)).toEqual(['Sale!']);
    const [row] = await chat.rows<{ status: string; external_id: string; origin: string; dispatched_at: Date }>(
      t,
      'SELECT status, external_id, origin, dispatched_at FROM messages WHERE id = $1',
      [queued.messageIds[0]],
    );
    expect(row).toMatchObject({ status: 'SENT', origin: 'broadcast', external_id: expect.stringMatching(/^ext-/) });
    expect((await chat.events(t, 'message.sent')).map((e) => (e.payload as { message: { id: string } }).message.id)).toEqual(queued.messageIds);
    // Nothing left: another look sends nothing.
    expect(await worker.sendOn(id)).toBe(false);
    expect(chat.provider.callsTo(to.phone)).toHaveLength(1);
  });

  it('should refuse origins that are sent at once', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const to = await contact(t);
    await expect(queue(t, id, to.id, 'hi', 'agent', null)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(queue(t, randomUUID(), to.id, 'hi', 'rule')).rejects.toMatchObject({ code: 'channel_account.not_found' });
    expect(await chat.rows(t, 'SELECT id FROM messages')).toEqual([]);
  });

  it('should serve bot replies first, then broadcasts round-robin', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const people = await Promise.all(Array.from({ length: 7 }, () => contact(t)));
    const [a, b] = [randomUUID(), randomUUID()];
    for (const [i, p] of people.slice(0, 3).entries()) await queue(t, id, p.id, `A${i + 1}`, 'broadcast', a);
    for (const [i, p] of people.slice(3, 6).entries()) await queue(t, id, p.id, `B${i + 1}`, 'broadcast', b);
    await queue(t, id, people[6].id, 'bot answer', 'bot');
    const order = ['bot answer', 'A1', 'B1', 'A2', 'B2', 'A3', 'B3'];
    // The queue's listing shows the order the worker serves.
    const items = await app.inject({ method: 'GET', url: `/functions/v1/messaging/outbound-queue/items?channel_account_id=${id}`, headers: t.key });
    expect(items.json().items.map((m: { content: string }) => m.content)).toEqual(order);
    const before = chat.provider.calls.length;
    expect(await drain(app.get(OutboundQueueWorker), id)).toBe(7);
    expect(chat.provider.calls.slice(before).map((c) => c.body.UOWCHAT.message)).toEqual(order);
  });

  it('should serve the same order one send at a time when the pacing spaces the sends', async () => {
    const t = await chat.newTenant();
    const id = await account(t, { ...UNPACED_PACING, gap_seconds: [1, 2], cold_gap_seconds: [1, 2] });
    const people = await Promise.all(Array.from({ length: 5 }, () => contact(t)));
    const [a, b] = [randomUUID(), randomUUID()];
    for (const [i, p] of people.slice(0, 2).entries()) await queue(t, id, p.id, `A${i + 1}`, 'broadcast', a);
    for (const [i, p] of people.slice(2, 4).entries()) await queue(t, id, p.id, `B${i + 1}`, 'sequence', b);
    await queue(t, id, people[4].id, 'rule answer', 'rule');
    const items = await app.inject({ method: 'GET', url: `/functions/v1/messaging/outbound-queue/items?channel_account_id=${id}`, headers: t.key });
    const listed = items.json().items.map((m: { content: string }) => m.content);
    expect(listed).toEqual(['rule answer', 'B1', 'B2', 'A1', 'A2']);
    let now = new Date();
    const worker = new OutboundQueueWorker(runtime.db, app.get(OutboundDispatcher), app.get(OrganizationSettings), new OutboundSignal(), () => now);
    const before = chat.provider.calls.length;
    for (let looks = 0; chat.provider.calls.length - before < 5 && looks < 50; looks++) {
      if (!(await worker.sendOn(id))) {
        const [held] = await runtime.db.systemQuery<{ next_send_at: Date }>('SELECT next_send_at FROM channel_accounts WHERE id = $1', [id]);
        now = new Date(held.next_send_at);
      }
    }
    expect(chat.provider.calls.slice(before).map((c) => c.body.UOWCHAT.message)).toEqual(listed);
  });

  it('should carry up to receivers_per_call receivers of one broadcast in one provider call, each with its own row, video as videoUrl', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const people = await Promise.all(Array.from({ length: 12 }, () => contact(t)));
    const broadcast = randomUUID();
    const video = 'https://cdn.example.test/spot.mp4';
    const ids: string[] = [];
    for (const p of people) {
      const author = { origin: 'broadcast' as const, originId: broadcast };
      const send = { message: 'Watch this', mediaUrls: [video], mediaKind: 'video' as const, author };
      ids.push(...(await app.get(OutboundDispatcher).enqueue(t.ctx, { channelAccountId: id, contactId: p.id }, send)).messageIds);
    }
    const before = chat.provider.calls.length;
    expect(await drain(app.get(OutboundQueueWorker), id)).toBe(2);
    const calls = chat.provider.calls.slice(before).map((c) => c.body.UOWCHAT);
    expect(calls.map((c) => c.receivers.length)).toEqual([10, 2]);
    expect(calls.flatMap((c) => c.receivers.map((r) => r.mobileNum)).sort()).toEqual(people.map((p) => p.phone).sort());
    for (const c of calls) expect(c).toMatchObject({ message: 'Watch this', videoUrl: video, imageUrl: '', documentUrl: '' });
    expect(await statusOf(t, ids)).toEqual(ids.map(() => 'SENT'));
    // Each receiver has its own conversation and row; every one counts toward the caps.
    expect(await chat.rows(t, 'SELECT DISTINCT conversation_id FROM messages')).toHaveLength(12);
    const [counted] = await chat.rows<{ n: number }>(t, 'SELECT count(*)::int AS n FROM messages WHERE dispatched_at IS NOT NULL');
    expect(counted.n).toBe(12);
  });

  it('should never deliver a message twice with two workers, and keep one provider call in flight per account', async () => {
    const t = await chat.newTenant();
    const accounts = await Promise.all([account(t), account(t), account(t)]);
    const owner = new Map<string, string>();
    const ids: string[] = [];
    for (const accountId of accounts) {
      for (let i = 0; i < 8; i += 1) {
        const to = await contact(t);
        owner.set(to.phone, accountId);
        ids.push(...(await queue(t, accountId, to.id, `m${i}`, 'sequence')).messageIds);
      }
    }
    const inFlight = new Map<string, number>();
    let most = 0;
    chat.provider.script = (call) => {
      const accountId = owner.get(call.body.UOWCHAT.receivers[0].mobileNum);
      if (!accountId) return undefined;
      const now = (inFlight.get(accountId) ?? 0) + 1;
      inFlight.set(accountId, now);
      most = Math.max(most, now);
      setTimeout(() => inFlight.set(accountId, inFlight.get(accountId)! - 1), 20);
      return { status: 200, body: { status: true, message: 'Message sent', external_id: `q-${randomUUID()}` }, delayMs: 20 };
    };
    const workers = [
      app.get(OutboundQueueWorker),
      new OutboundQueueWorker(runtime.db, app.get(OutboundDispatcher), app.get(OrganizationSettings), new OutboundSignal()),
    ];
    const run = async (worker: OutboundQueueWorker) => {
      for (let i = 0; i < 200 && (await statusOf(t, ids)).includes('QUEUED'); i += 1) await worker.pass();
    };
    await Promise.all(workers.map(run));
    chat.provider.script = () => undefined;
    expect(await statusOf(t, ids)).toEqual(ids.map(() => 'SENT'));
    for (const phone of owner.keys()) expect(chat.provider.callsTo(phone)).toHaveLength(1);
    expect(most).toBe(1);
  });

  it('should wait a cold gap between two automated sends, drawn inside its range, and show when the next goes', async () => {
    const t = await chat.newTenant();
    const id = await account(t, { quiet_hours: null });
    const [first, second] = [await contact(t), await contact(t)];
    await queue(t, id, first.id, 'one', 'broadcast');
    const next = await queue(t, id, second.id, 'two', 'broadcast');
    const worker = app.get(OutboundQueueWorker);
    expect(await worker.sendOn(id)).toBe(true);
    expect(await worker.sendOn(id)).toBe(false);
    const [sent] = await chat.rows<{ dispatched_at: Date }>(t, "SELECT dispatched_at FROM messages WHERE status = 'SENT'");
    const [waiting] = await chat.rows<{ status: string; scheduled_for: Date }>(t, 'SELECT status, scheduled_for FROM messages WHERE id = $1', [
      next.messageIds[0],
    ]);
    const gap = (new Date(waiting.scheduled_for).getTime() - new Date(sent.dispatched_at).getTime()) / 1000;
    expect(waiting.status).toBe('QUEUED');
    // Neither recipient ever wrote: the chat app's cold gap, 30 to 60 seconds.
    expect(gap).toBeGreaterThanOrEqual(30);
    expect(gap).toBeLessThanOrEqual(60);
    const [held] = await runtime.db.systemQuery<{ next_send_at: Date }>('SELECT next_send_at FROM channel_accounts WHERE id = $1', [id]);
    expect(new Date(held.next_send_at).getTime()).toBe(new Date(waiting.scheduled_for).getTime());
    expect(chat.provider.callsTo(second.phone)).toHaveLength(0);
  });

  it('should pause the account after five provider failures in a row, and at once on a 429', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const people = await Promise.all(Array.from({ length: 7 }, () => contact(t)));
    const failing = new Set(people.map((p) => p.phone));
    chat.provider.script = (call) =>
      failing.has(call.body.UOWCHAT.receivers[0].mobileNum) ? { status: 500, body: { status: false, message: 'gateway down' } } : undefined;
    const ids: string[] = [];
    for (const p of people) ids.push(...(await queue(t, id, p.id, 'hello', 'broadcast')).messageIds);
    const worker = app.get(OutboundQueueWorker);
    expect(await drain(worker, id)).toBe(5);
    expect(await statusOf(t, ids)).toEqual(['FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'QUEUED', 'QUEUED']);
    const [paused] = await runtime.db.systemQuery<{ paused_reason: string; consecutive_failures: number }>(
      'SELECT paused_reason, consecutive_failures FROM channel_accounts WHERE id = $1 AND paused_at IS NOT NULL',
      [id],
    );
    expect(paused).toMatchObject({ consecutive_failures: 5, paused_reason: expect.stringMatching(/^consecutive_failures: 5 provider failures in a row/) });

    // Resumed (as the resume endpoint does), a 429 pauses it again after one call.
    await runtime.db.systemQuery('UPDATE channel_accounts SET paused_at = NULL, paused_reason = NULL, consecutive_failures = 0 WHERE id = $1', [id]);
    chat.provider.script = (call) =>
      failing.has(call.body.UOWCHAT.receivers[0].mobileNum) ? { status: 429, body: { status: false, message: 'slow down' } } : undefined;
    expect(await drain(worker, id)).toBe(1);
    chat.provider.script = () => undefined;
    const [again] = await runtime.db.systemQuery<{ paused_reason: string }>('SELECT paused_reason FROM channel_accounts WHERE id = $1', [id]);
    expect(again.paused_reason).toMatch(/^rate_limited: /);
    expect(await statusOf(t, ids)).toEqual(['FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'FAILED', 'QUEUED']);
  });

  it('should never resend a message whose worker died during the provider call: it becomes FAILED outcome_unknown', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const to = await contact(t);
    const [messageId] = (await queue(t, id, to.id, 'in flight', 'sequence')).messageIds;
    // The process dies once the message is taken, before the provider answers.
    const dying = Object.create(app.get(OutboundDispatcher)) as OutboundDispatcher;
    dying.deliverQueued = () => Promise.reject(new Error('process killed'));
    const doomed = new OutboundQueueWorker(runtime.db, dying, app.get(OrganizationSettings), new OutboundSignal());
    await expect(doomed.sendOn(id)).rejects.toThrow('process killed');
    expect(await statusOf(t, [messageId])).toEqual(['PENDING']);
    // Even once the dead worker's lease ran out, the message is not taken again.
    await runtime.db.systemQuery("UPDATE channel_accounts SET queue_lease_until = now() - interval '1 second' WHERE id = $1", [id]);
    expect(await app.get(OutboundQueueWorker).sendOn(id)).toBe(false);
    expect(chat.provider.callsTo(to.phone)).toHaveLength(0);
    const sweeper = new PendingSendSweeper(runtime.db, { staleAfterMs: 10 * 60_000, now: () => new Date(Date.now() + 11 * 60_000) });
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
    const [row] = await chat.rows<{ status: string; error: string }>(t, 'SELECT status, error FROM messages WHERE id = $1', [messageId]);
    expect(row).toEqual({ status: 'FAILED', error: 'outcome_unknown' });
    expect(chat.provider.callsTo(to.phone)).toHaveLength(0);
  });

  it('should take each call of a burst in the commit that records the one before, so a death mid-burst leaves the rest QUEUED', async () => {
    const t = await chat.newTenant();
    const id = await account(t);
    const people = await Promise.all(Array.from({ length: 6 }, () => contact(t)));
    const ids: string[] = [];
    for (const [i, p] of people.entries()) ids.push(...(await queue(t, id, p.id, `Code ${i}`, 'api_queued')).messageIds);
    const sentEvents = async () => (await chat.events(t, 'message.sent')).length;
    // What the database shows while the provider holds the second call of the burst.
    let during: Promise<[string[], number]> | undefined;
    chat.provider.script = (call) => {
      if (call.body.UOWCHAT.receivers[0].mobileNum !== people[1].phone) return undefined;
      during = Promise.all([statusOf(t, ids), sentEvents()]);
      return { status: 200, body: { status: true, message: 'Message sent', external_id: `b-${randomUUID()}` }, delayMs: 300 };
    };
    // The process dies once the third call's message is taken (with the second's outcome), before its provider call.
    const real = app.get(OutboundDispatcher);
    const dying = Object.create(real) as OutboundDispatcher;
    let delivered = 0;
    dying.deliverQueued = (...args) => (++delivered === 3 ? Promise.reject(new Error('process killed')) : real.deliverQueued.apply(dying, args));
    const doomed = new OutboundQueueWorker(runtime.db, dying, app.get(OrganizationSettings), new OutboundSignal());
    await expect(doomed.sendOn(id)).rejects.toThrow('process killed');
    chat.provider.script = () => undefined;
    expect(await during).toEqual([['SENT', 'PENDING', 'QUEUED', 'QUEUED', 'QUEUED', 'QUEUED'], 1]);
    expect(await statusOf(t, ids)).toEqual(['SENT', 'SENT', 'PENDING', 'QUEUED', 'QUEUED', 'QUEUED']);
    expect(await sentEvents()).toBe(2);
    expect(chat.provider.calls.filter((c) => people.some((p) => p.phone === c.body.UOWCHAT.receivers[0].mobileNum))).toHaveLength(2);

    // Once the dead worker's lease ran out, the rest go out once; the taken one is never sent by itself.
    await runtime.db.systemQuery("UPDATE channel_accounts SET queue_lease_until = now() - interval '1 second' WHERE id = $1", [id]);
    expect(await drain(app.get(OutboundQueueWorker), id)).toBe(3);
    const sweeper = new PendingSendSweeper(runtime.db, { staleAfterMs: 10 * 60_000, now: () => new Date(Date.now() + 11 * 60_000) });
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(1);
    const rows = await chat.rows<{ status: string; error: string | null }>(
      t,
      'SELECT status, error FROM messages WHERE id = ANY($1::uuid[]) ORDER BY created_at',
      [ids],
    );
    expect(rows.map((r) => r.status)).toEqual(['SENT', 'SENT', 'FAILED', 'SENT', 'SENT', 'SENT']);
    expect(rows[2].error).toBe('outcome_unknown');
    expect(people.map((p) => chat.provider.callsTo(p.phone).length)).toEqual([1, 1, 0, 1, 1, 1]);
    // Each outcome's event once.
    expect(await sentEvents()).toBe(5);
    expect((await chat.events(t, 'message.failed')).map((e) => (e.payload as { message: { id: string } }).message.id)).toEqual([ids[2]]);
  });

  it('should pace 200 broadcast sends of a mature account on the default chat-app policy, on an injected clock', async () => {
    const t = await chat.newTenant();
    const id = await account(t, {});
    // Older than the warm-up; its recipients (Egyptian numbers: Cairo time) all wrote an hour ago.
    const start = new Date('2026-12-01T08:00:00Z'); // 10:00 in Cairo, far from the quiet hours
    await runtime.db.systemQuery("UPDATE channel_accounts SET created_at = $2::timestamptz - interval '30 days' WHERE id = $1", [id, start]);
    const broadcast = randomUUID();
    const people = await Promise.all(Array.from({ length: 200 }, () => contact(t)));
    for (const [i, p] of people.entries()) await queue(t, id, p.id, `Offer ${i}`, 'broadcast', broadcast);
    await runtime.db.systemQuery("UPDATE conversations SET last_customer_message_at = $2::timestamptz - interval '1 hour' WHERE channel_account_id = $1", [
      id,
      start,
    ]);
    let now = start;
    const worker = new OutboundQueueWorker(runtime.db, app.get(OutboundDispatcher), app.get(OrganizationSettings), new OutboundSignal(), () => now);
    let sent = 0;
    for (let looks = 0; sent < 200 && looks < 2000; looks += 1) {
      if (await worker.sendOn(id)) sent += 1;
      else {
        const [account] = await runtime.db.systemQuery<{ next_send_at: Date }>('SELECT next_send_at FROM channel_accounts WHERE id = $1', [id]);
        now = new Date(account.next_send_at);
      }
    }
    expect(sent).toBe(200);
    const times = (await chat.rows<{ at: Date }>(t, "SELECT dispatched_at AS at FROM messages WHERE status = 'SENT' ORDER BY dispatched_at")).map((r) =>
      new Date(r.at).getTime(),
    );
    const gaps = times.slice(1).map((at, i) => (at - times[i]) / 1000);
    // Warm recipients: 3 to 9 s between sends, drawn at random (never a fixed interval)...
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(3);
    const paced = gaps.filter((g) => g <= 9);
    expect(new Set(paced.map((g) => Math.round(g))).size).toBeGreaterThanOrEqual(5);
    // ...and never more than 80 in any hour: the rest wait for the hourly cap.
    for (const at of times) expect(times.filter((x) => x > at - 3_600_000 && x <= at).length).toBeLessThanOrEqual(80);
    expect(gaps.filter((g) => g > 9).length).toBeGreaterThanOrEqual(2);
    expect((times[199] - times[0]) / 3_600_000).toBeGreaterThan(2);
    // About 400 looks at the queue on the database: over 20 s alone, longer beside other suites.
  }, 120_000);
});
