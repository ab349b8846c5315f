import { memberHeaders, type TestTenant } from '@engage/identity/testing';
import { randomUUID } from 'node:crypto';
import { BroadcastPass } from './broadcast-pass';
import { RecipientOutcomes } from './recipient-outcomes';
import { BroadcastsService } from './broadcasts.service';
import { OutboundDispatcher, OutboundQueueWorker } from '@engage/messaging';
import type { Clock } from '@engage/shared-kernel';
import { type CampaignsApp, startCampaignsApp, waitFor } from '../testing/campaigns-test-app';

let c: CampaignsApp;
beforeAll(async () => {
  c = await startCampaignsApp();
});
afterAll(() => c.close());

const post = (t: TestTenant, url: string, payload?: unknown) =>
  c.app.inject({ method: 'POST', url: `/functions/v1/campaigns/${url}`, headers: t.session, ...(payload === undefined ? {} : { payload: payload as object }) });
const get = (t: TestTenant, url: string, headers: Record<string, string> = {}) =>
  c.app.inject({ method: 'GET', url: `/functions/v1/campaigns/${url}`, headers: { ...t.session, ...headers } });

type Recipient = { contact_id: string; status: string; phone: string | null; message_id: string | null; error: string | null; queued_at: string | null };
const recipients = async (t: TestTenant, broadcastId: string): Promise<Recipient[]> =>
  (await c.app.inject({ method: 'GET', url: `/rest/v1/broadcast_recipients?broadcast_id=eq.${broadcastId}&order=created_at`, headers: t.session })).json();

// A pass of its own, with a small batch, on a clock the test moves.
function passWith(batch: number, now: () => Date = () => new Date()) {
  const clock: Clock = { now };
  const broadcasts = new BroadcastsService(c.runtime.db, () => c.app.get(BroadcastsService)['tables'](), c.app.get(BroadcastsService)['audiences'], clock);
  return new BroadcastPass(c.runtime.db, broadcasts, c.app.get(OutboundDispatcher), clock, { batch, window: 1000, leaseSeconds: 60 });
}

// Hands out and sends until every recipient of the broadcast has an outcome.
async function sendAll(t: TestTenant, accountId: string, broadcastId: string, pass: BroadcastPass = c.app.get(BroadcastPass)) {
  const worker = c.app.get(OutboundQueueWorker);
  return waitFor(
    async () => {
      await pass.pass();
      while (await worker.sendOn(accountId));
      return recipients(t, broadcastId);
    },
    (rows) => rows.every((r) => r.status !== 'queued'),
  );
}

async function audience(t: TestTenant) {
  const shared = c.newPhone();
  const people = {
    a: await c.contact(t, { first_name: 'Amal', last_name: 'Saleh', tags: ['vip'], phones: [shared], opt_in_status: true }),
    b: await c.contact(t, { first_name: 'Badr', last_name: null, tags: ['vip'], phones: [c.newPhone()], opt_in_status: true }),
    c: await c.contact(t, { first_name: 'Carma', last_name: 'Fahmy', tags: ['vip'], phones: [c.newPhone()], opt_in_status: true }),
    noOptIn: await c.contact(t, { first_name: 'Nour', tags: ['vip'], phones: [c.newPhone()], opt_in_status: false }),
    noPhone: await c.contact(t, { first_name: 'Omar', tags: ['vip'], opt_in_status: true }),
    duplicate: await c.contact(t, { first_name: 'Dina', tags: ['vip'], phones: [c.newPhone()], opt_in_status: true }),
  };
  await c.runtime.db.systemQuery('UPDATE contacts SET phones = ARRAY[$2] WHERE id = $1', [people.duplicate.id, shared]);
  return people;
}

async function draft(t: TestTenant, accountId: string, text: string) {
  const segment = await c.app.inject({
    method: 'POST',
    url: '/rest/v1/segments',
    headers: { ...t.session, prefer: 'return=representation' },
    payload: { name: 'VIP', filter: 'tags=cs.{vip}' },
  });
  const created = await post(t, 'broadcasts', {
    name: 'Spring sale',
    channel_account_id: accountId,
    audience: { segment_id: segment.json()[0].id },
    content: { text },
  });
  expect(created.statusCode).toBe(201);
  expect(created.json()).toMatchObject({ status: 'draft', channel_kind: 'chat_app' });
  return created.json().id as string;
}

const digits = (phone: string) => phone.replace(/^\+/, '');

describe('broadcasts', () => {
  it('should send an unpersonalised broadcast to a segment once a phone, several receivers per call, skipping the rest', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const people = await audience(t);
    const id = await draft(t, account, 'Spring sale: 20% off today');
    const started = await post(t, `broadcasts/${id}/start`);
    expect(started.statusCode).toBe(200);
    expect(started.json()).toMatchObject({
      status: 'sending',
      counts: { queued: 3, skipped_no_opt_in: 1, skipped_invalid: 1, skipped_duplicate: 1, total: 6 },
    });
    // A second start changes nothing.
    expect((await post(t, `broadcasts/${id}/start`)).statusCode).toBe(409);

    const before = c.provider.calls.length;
    const rows = await sendAll(t, account, id);
    const byContact = Object.fromEntries(rows.map((r) => [r.contact_id, r]));
    expect(byContact[people.a.id]).toMatchObject({ status: 'sent', message_id: expect.any(String) });
    expect(byContact[people.b.id].status).toBe('sent');
    expect(byContact[people.c.id].status).toBe('sent');
    expect(byContact[people.noOptIn.id].status).toBe('skipped_no_opt_in');
    expect(byContact[people.noPhone.id].status).toBe('skipped_invalid');
    expect(byContact[people.duplicate.id].status).toBe('skipped_duplicate');
    const calls = c.provider.calls.slice(before);
    // One call carried the three receivers (the account's receivers_per_call allows it).
    expect(calls).toHaveLength(1);
    expect(calls[0].body.UOWCHAT.receivers.map((r) => r.mobileNum).sort()).toEqual([people.a, people.b, people.c].map((p) => digits(p.phones[0])).sort());
    const done = await waitFor(
      async () => {
        await c.app.get(BroadcastPass).pass();
        return get(t, `broadcasts/${id}`);
      },
      (res) => res.json().status === 'completed',
    );
    expect(done.json()).toMatchObject({ status: 'completed', counts: { sent: 3, queued: 0 } });
    // Another pass hands out no one again.
    await c.app.get(BroadcastPass).pass();
    while (await c.app.get(OutboundQueueWorker).sendOn(account));
    expect(c.provider.calls.slice(before)).toHaveLength(1);
  });

  it('should make one call per recipient for personalised text, each with its own fields', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const people = await audience(t);
    const id = await draft(t, account, 'Hi {{contact.first_name}} {{contact.last_name | friend}}!');
    expect((await post(t, `broadcasts/${id}/start`)).statusCode).toBe(200);
    const before = c.provider.calls.length;
    await sendAll(t, account, id);
    const calls = c.provider.calls.slice(before);
    expect(calls).toHaveLength(3);
    const texts = Object.fromEntries(calls.map((call) => [call.body.UOWCHAT.receivers[0].mobileNum, call.body.UOWCHAT.message]));
    expect(texts).toEqual({
      [digits(people.a.phones[0])]: 'Hi Amal Saleh!',
      [digits(people.b.phones[0])]: 'Hi Badr friend!',
      [digits(people.c.phones[0])]: 'Hi Carma Fahmy!',
    });
  });

  it('should withdraw the queued messages on pause, send nothing while paused, and everyone exactly once after resume', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const people = await Promise.all(
      Array.from({ length: 5 }, (_, i) => c.contact(t, { first_name: `P${i}`, tags: ['vip'], phones: [c.newPhone()], opt_in_status: true })),
    );
    const id = await draft(t, account, 'Hello {{contact.first_name}}');
    expect((await post(t, `broadcasts/${id}/start`)).statusCode).toBe(200);
    const pass = passWith(2);
    await pass.pass();
    const handed = (await recipients(t, id)).filter((r) => r.queued_at !== null);
    expect(handed).toHaveLength(2);
    expect((await post(t, `broadcasts/${id}/pause`)).json()).toMatchObject({ status: 'paused', counts: { queued: 5 } });
    expect((await post(t, `broadcasts/${id}/pause`)).statusCode).toBe(409);
    // The two messages waiting in the queue were withdrawn and their recipients wait in the broadcast again.
    const withdrawn = await c.runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ status: string; error: string }>(`SELECT status, error FROM messages WHERE id = ANY ($1::uuid[])`, [handed.map((r) => r.message_id)]),
    );
    expect(withdrawn).toEqual([
      { status: 'FAILED', error: 'withdrawn: the broadcast was paused' },
      { status: 'FAILED', error: 'withdrawn: the broadcast was paused' },
    ]);
    expect((await recipients(t, id)).map((r) => [r.status, r.queued_at, r.message_id])).toEqual(Array(5).fill(['queued', null, null]));
    // While paused neither the pass nor the queue's worker sends anything.
    const before = c.provider.calls.length;
    await pass.pass();
    while (await c.app.get(OutboundQueueWorker).sendOn(account));
    expect(c.provider.calls.length).toBe(before);
    expect((await recipients(t, id)).filter((r) => r.queued_at !== null)).toHaveLength(0);

    expect((await post(t, `broadcasts/${id}/resume`)).json().status).toBe('sending');
    const rows = await sendAll(t, account, id, pass);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    // The withdrawn messages' failures (relayed meanwhile) changed no recipient; each has its sent message.
    expect(rows.filter((r) => handed.some((h) => h.message_id === r.message_id))).toEqual([]);
    const received = c.provider.calls.slice(before).flatMap((call) => call.body.UOWCHAT.receivers.map((r) => r.mobileNum));
    expect(received).toHaveLength(5);
    for (const p of people) expect(c.provider.callsTo(digits(p.phones[0]))).toHaveLength(1);
    const done = await waitFor(
      async () => {
        await pass.pass();
        return get(t, `broadcasts/${id}`);
      },
      (res) => res.json().status === 'completed',
    );
    expect(done.json().counts).toMatchObject({ sent: 5, failed: 0, queued: 0 });
  });

  it('should withdraw the queued messages on cancel and fail every recipient not sent', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    for (let i = 0; i < 4; i++) await c.contact(t, { first_name: `K${i}`, tags: ['vip'], phones: [c.newPhone()], opt_in_status: true });
    const id = await draft(t, account, 'Hello {{contact.first_name}}');
    await post(t, `broadcasts/${id}/start`);
    await passWith(3).pass();
    expect((await recipients(t, id)).filter((r) => r.queued_at !== null)).toHaveLength(3);
    expect((await post(t, `broadcasts/${id}/cancel`)).json()).toMatchObject({ status: 'cancelled', counts: { failed: 4, queued: 0 } });
    const before = c.provider.calls.length;
    while (await c.app.get(OutboundQueueWorker).sendOn(account));
    expect(c.provider.calls.length).toBe(before);
    const rows = await recipients(t, id);
    expect(rows.map((r) => [r.status, r.error])).toEqual(Array(4).fill(['failed', 'not sent: the broadcast was cancelled']));
  });

  it('should hand each recipient over once across two workers and a worker that stopped between batches', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const people = await Promise.all(
      Array.from({ length: 7 }, (_, i) => c.contact(t, { first_name: `W${i}`, tags: ['vip'], phones: [c.newPhone()], opt_in_status: true })),
    );
    const id = await draft(t, account, 'Hi {{contact.first_name}}');
    expect((await post(t, `broadcasts/${id}/start`)).statusCode).toBe(200);
    // The first worker hands out one batch, takes the broadcast again and is gone, its lease still held.
    let now = Date.now();
    await passWith(3, () => new Date(now)).handOut();
    expect((await recipients(t, id)).filter((r) => r.queued_at !== null)).toHaveLength(3);
    await c.runtime.db.systemQuery(`UPDATE broadcasts SET lease_until = $2 WHERE id = $1`, [id, new Date(now + 60_000)]);
    // Two workers together: the lease keeps the second out until it runs out, then both go on.
    const one = passWith(2, () => new Date(now));
    const two = passWith(2, () => new Date(now));
    expect(await one.handOut()).toBe(0);
    now += 61_000;
    await Promise.all([one.handOut(), two.handOut(), one.handOut(), two.handOut()]);
    await sendAll(t, account, id, one);
    for (const p of people) expect(c.provider.callsTo(digits(p.phones[0]))).toHaveLength(1);
    expect((await recipients(t, id)).every((r) => r.status === 'sent')).toBe(true);
  });

  it('should record provider failures with their reason, and report counts, rates and a CSV', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    await audience(t);
    c.provider.script = (call) => (call.body.UOWCHAT.message === 'Fail me' ? { status: 500, body: { status: false, message: 'provider down' } } : undefined);
    const id = await draft(t, account, 'Fail me');
    await post(t, `broadcasts/${id}/start`);
    const rows = await sendAll(t, account, id);
    c.provider.script = () => undefined;
    expect(rows.filter((r) => r.status === 'failed')).toHaveLength(3);
    const report = await waitFor(
      async () => {
        await c.app.get(BroadcastPass).pass();
        return get(t, `broadcasts/${id}/report`);
      },
      (res) => res.json().status === 'completed',
    );
    expect(report.json()).toMatchObject({ counts: { failed: 3, skipped_no_opt_in: 1 }, delivery_rate: 0, read_rate: 0, reply_rate: 0, pause_reason: null });
    expect(report.json().failures_by_reason).toEqual([{ reason: expect.stringContaining('provider down'), count: 3 }]);
    const csv = await get(t, `broadcasts/${id}/report`, { accept: 'text/csv' });
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('contact_id,phone,status,error,message_id,queued_at,sent_at,delivered_at,read_at,replied_at,failed_at');
    expect(lines).toHaveLength(7);
  });

  it('should follow delivered and read, never backwards: a late delivered after read changes nothing', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const person = await c.contact(t, { first_name: 'Rana', tags: ['vip'], phones: [c.newPhone()], opt_in_status: true });
    const id = await draft(t, account, 'Read me');
    await post(t, `broadcasts/${id}/start`);
    const [sent] = await sendAll(t, account, id);
    expect(sent.status).toBe('sent');
    const event = (type: string) => ({
      id: randomUUID(),
      type,
      source: 'messaging',
      organizationId: t.ctx.organizationId,
      aggregateId: sent.message_id!,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
      payload: { message: { id: sent.message_id, origin: 'broadcast', origin_id: id, contact_id: person.id, error: null } },
    });
    const outcomes = c.app.get(RecipientOutcomes);
    await outcomes.apply([event('message.read')]);
    await outcomes.apply([event('message.delivered')]);
    await outcomes.apply([event('message.failed')]);
    const [row] = (await recipients(t, id)) as (Recipient & { read_at: string | null; delivered_at: string | null })[];
    expect(row).toMatchObject({ status: 'read', error: null, read_at: expect.any(String), delivered_at: expect.any(String) });
  });

  it('should answer bad input with a clear 4xx, never a 500', async () => {
    const t = await c.newTenant();
    const other = await c.newTenant();
    const account = await c.chatAccount(t);
    const theirs = await c.chatAccount(other);
    const person = await c.contact(t, { tags: ['vip'], phones: [c.newPhone()], opt_in_status: true });
    const good = { name: 'B', channel_account_id: account, audience: { contact_ids: [person.id] }, content: { text: 'Hi' } };
    const cases: [unknown, number, RegExp][] = [
      [[1], 400, /body/],
      [{ ...good, name: undefined }, 400, /name/],
      [{ ...good, name: 'n'.repeat(201) }, 400, /name/],
      [{ ...good, channel_account_id: 'x' }, 400, /channel_account_id/],
      [{ ...good, channel_account_id: theirs }, 404, /channel_account/],
      [{ ...good, audience: { contact_ids: [randomUUID()] } }, 404, /contact/],
      [{ ...good, audience: { filter: 'nope=eq.1' } }, 400, /audience.filter/],
      [{ ...good, content: { text: '' } }, 400, /content.text/],
      [{ ...good, content: { text: 7 } }, 400, /content.text/],
      [{ ...good, content: { text: 'x'.repeat(4097) } }, 400, /at most 4096/],
      [{ ...good, content: { text: 'Hi {{contact.shoe}}' } }, 400, /not a field/],
      [{ ...good, content: { text: 'Hi {{contact.first_name' } }, 400, /malformed/],
      [{ ...good, content: { text: 'Hi', media_url: 'http://x.example/a.png' } }, 400, /media_url/],
      [{ ...good, content: { text: 'Hi', media_kind: 'audio', media_url: 'https://x.example/a.png' } }, 400, /media_kind/],
      [{ ...good, extra: 1 }, 400, /extra/],
    ];
    for (const [payload, status, message] of cases) {
      const res = await post(t, 'broadcasts', payload);
      expect({ payload: JSON.stringify(payload).slice(0, 100), status: res.statusCode }).toEqual({ payload: JSON.stringify(payload).slice(0, 100), status });
      expect(res.json().error ?? res.json().message).toMatch(message);
    }
    const created = await post(t, 'broadcasts', good);
    const id = created.json().id as string;
    expect((await get(other, `broadcasts/${id}`)).statusCode).toBe(404);
    expect((await post(other, `broadcasts/${id}/start`)).statusCode).toBe(404);
    expect((await get(t, 'broadcasts/not-a-uuid')).statusCode).toBe(400);
    expect((await get(t, 'broadcasts?status=done')).statusCode).toBe(400);
    expect((await get(t, 'broadcasts?limit=0')).statusCode).toBe(400);
    expect((await post(t, `broadcasts/${id}/schedule`, { at: 'tomorrow' })).statusCode).toBe(400);
    expect((await post(t, `broadcasts/${id}/schedule`, { at: '2001-01-01T00:00:00Z' })).statusCode).toBe(400);
    expect((await post(t, `broadcasts/${id}/resume`)).statusCode).toBe(409);
    expect((await post(t, `broadcasts/${id}/pause`)).statusCode).toBe(409);
    const agent = await memberHeaders(c.app, t, 'AGENT');
    expect((await c.app.inject({ method: 'POST', url: `/functions/v1/campaigns/broadcasts/${id}/start`, headers: agent })).statusCode).toBe(403);
    const list = await get(t, 'broadcasts');
    expect(list.json()).toMatchObject({ total: 1, broadcasts: [{ id, status: 'draft', counts: { total: 0 } }] });
    expect((await post(t, `broadcasts/${id}/cancel`)).json().status).toBe('cancelled');
    expect((await post(t, `broadcasts/${id}/start`)).statusCode).toBe(409);
    expect((await post(t, `broadcasts/${id}/cancel`)).statusCode).toBe(409);
  });

  it('should start a scheduled broadcast when its time comes, on the pass clock', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const person = await c.contact(t, { tags: ['vip'], phones: [c.newPhone()], opt_in_status: true });
    const created = await post(t, 'broadcasts', {
      name: 'Later',
      channel_account_id: account,
      audience: { contact_ids: [person.id] },
      content: { text: 'Later' },
    });
    const id = created.json().id as string;
    const at = new Date(Date.now() + 3_600_000);
    const scheduled = await post(t, `broadcasts/${id}/schedule`, { at: at.toISOString() });
    expect(scheduled.json()).toMatchObject({ status: 'scheduled', scheduled_at: at.toISOString() });
    await passWith(10, () => new Date(at.getTime() - 1_000)).startDue();
    expect((await get(t, `broadcasts/${id}`)).json().status).toBe('scheduled');
    await passWith(10, () => new Date(at.getTime() + 1_000)).startDue();
    expect((await get(t, `broadcasts/${id}`)).json()).toMatchObject({ status: 'sending', counts: { queued: 1 } });
  });

  it('should preview a text as a contact gets it (no SMS encoding on a chat-app account)', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const person = await c.contact(t, { first_name: 'Hana', last_name: null, phones: [c.newPhone()] });
    const preview = await post(t, 'content/preview', {
      channel_account_id: account,
      text: 'Hi {{contact.first_name}} {{contact.last_name | there}}',
      contact_id: person.id,
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toEqual({ text: 'Hi Hana there' });
    expect((await post(t, 'content/preview', { channel_account_id: account, text: 'Hi {{contact.first_name | you}}' })).json()).toEqual({ text: 'Hi you' });
    const other = await c.newTenant();
    const cases: [unknown, number][] = [
      [{ channel_account_id: account }, 400],
      [{ channel_account_id: account, text: 'x', contact_id: 'x' }, 400],
      [{ channel_account_id: account, text: 'x', contact_id: randomUUID() }, 404],
      [{ channel_account_id: await c.chatAccount(other), text: 'x' }, 404],
      [{ channel_account_id: account, text: '{{contact.nope}}' }, 400],
      [{ channel_account_id: account, text: 'x'.repeat(4097) }, 400],
      [{ channel_account_id: account, text: 'x', more: 1 }, 400],
      [[], 400],
    ];
    for (const [payload, status] of cases) expect({ payload, status: (await post(t, 'content/preview', payload)).statusCode }).toEqual({ payload, status });
  });
});
