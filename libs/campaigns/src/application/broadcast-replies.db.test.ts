import type { TestTenant } from '@engage/identity/testing';
import { OutboundDispatcher, OutboundQueueWorker } from '@engage/messaging';
import { UNPACED_PACING } from '@engage/messaging/testing';
import type { Clock } from '@engage/shared-kernel';
import { BroadcastPass } from './broadcast-pass';
import { BroadcastsService } from './broadcasts.service';
import { type CampaignsApp, startCampaignsApp, waitFor } from '../testing/campaigns-test-app';

// Replies within a broadcast's window, and a broadcast pausing itself after failures in a row,
// against the loopback chat-app provider and messaging's public inbound webhook.
let c: CampaignsApp;
beforeAll(async () => {
  c = await startCampaignsApp();
});
afterAll(() => c.close());

const post = (t: TestTenant, url: string, payload?: unknown) =>
  c.app.inject({ method: 'POST', url: `/functions/v1/campaigns/${url}`, headers: t.session, ...(payload === undefined ? {} : { payload: payload as object }) });
const get = (t: TestTenant, url: string, headers: Record<string, string> = {}) =>
  c.app.inject({ method: 'GET', url: `/functions/v1/campaigns/${url}`, headers: { ...t.session, ...headers } });

type Recipient = {
  id: string;
  contact_id: string;
  status: string;
  message_id: string | null;
  error: string | null;
  sent_at: string | null;
  replied_at: string | null;
};
const recipients = async (t: TestTenant, id: string): Promise<Recipient[]> =>
  (await c.app.inject({ method: 'GET', url: `/rest/v1/broadcast_recipients?broadcast_id=eq.${id}&order=created_at`, headers: t.session })).json();

const outboxOf = (t: TestTenant, type: string) =>
  c.runtime.db.asSystem((tx) =>
    tx.query<{ source: string; payload: Record<string, unknown> }>('SELECT source, payload FROM outbox WHERE organization_id = $1 AND type = $2 ORDER BY seq', [
      t.ctx.organizationId,
      type,
    ]),
  );

// A pass handing out `batch` recipients at a time.
function passWith(batch: number) {
  const clock: Clock = { now: () => new Date() };
  const service = c.app.get(BroadcastsService);
  const broadcasts = new BroadcastsService(c.runtime.db, service['tables'], service['audiences'], clock);
  return new BroadcastPass(c.runtime.db, broadcasts, c.app.get(OutboundDispatcher), clock, { batch, window: 1000, leaseSeconds: 60 });
}

async function broadcastTo(t: TestTenant, account: string, contactIds: string[], extra: Record<string, unknown> = {}, text = 'Spring sale: 20% off') {
  const created = await post(t, 'broadcasts', {
    name: 'Sale',
    channel_account_id: account,
    audience: { contact_ids: contactIds },
    content: { text },
    ...extra,
  });
  expect(created.statusCode).toBe(201);
  const id = created.json().id as string;
  expect((await post(t, `broadcasts/${id}/start`)).statusCode).toBe(200);
  return id;
}

async function sendAll(t: TestTenant, account: string, id: string) {
  return waitFor(
    async () => {
      await c.app.get(BroadcastPass).pass();
      while (await c.app.get(OutboundQueueWorker).sendOn(account));
      return recipients(t, id);
    },
    (rows) => rows.every((r) => r.status === 'sent'),
  );
}

describe('broadcast replies', () => {
  it('should mark a reply within the window replied and emit broadcast.response once; a reply outside the window does neither', async () => {
    const t = await c.newTenant();
    const line = await c.chatLine(t);
    const amal = await c.contact(t, { first_name: 'Amal', phones: [c.newPhone()], opt_in_status: true });
    const badr = await c.contact(t, { first_name: 'Badr', phones: [c.newPhone()], opt_in_status: true });
    const id = await broadcastTo(t, line.id, [amal.id, badr.id], { reply_window_hours: 2 });
    expect((await get(t, `broadcasts/${id}`)).json()).toMatchObject({ reply_window_hours: 2, auto_pause_after_failures: 5, pause_reason: null });
    await sendAll(t, line.id, id);
    // Badr's message left three hours ago: his reply comes after the two-hour window.
    await c.runtime.db.systemQuery(`UPDATE broadcast_recipients SET sent_at = sent_at - interval '3 hours' WHERE broadcast_id = $1 AND contact_id = $2`, [
      id,
      badr.id,
    ]);

    await c.customerWrites(line, amal.phones[0], 'Yes, I want it');
    await c.customerWrites(line, badr.phones[0], 'Too late?');
    const rows = await waitFor(
      () => recipients(t, id),
      (all) => all.some((r) => r.status === 'replied'),
    );
    const by = Object.fromEntries(rows.map((r) => [r.contact_id, r]));
    expect(by[amal.id]).toMatchObject({ status: 'replied', replied_at: expect.any(String) });
    const responses = await waitFor(
      () => outboxOf(t, 'broadcast.response'),
      (all) => all.length > 0,
    );
    expect(responses).toHaveLength(1);
    expect(responses[0].source).toBe('campaigns');
    expect(responses[0].payload).toMatchObject({
      broadcast_id: id,
      contact_id: amal.id,
      conversation_id: expect.any(String),
      replied_to_message_id: by[amal.id].message_id,
      message: { content: 'Yes, I want it', direction: 'INBOUND', contact_id: amal.id },
    });
    expect(responses[0].payload.conversation_id).toBe((responses[0].payload.message as { conversation_id: string }).conversation_id);

    // A second reply of Amal's changes nothing (replied is the end state), nor does a late "read".
    await c.customerWrites(line, amal.phones[0], 'Hello?');
    await c.app.inject({
      method: 'POST',
      url: `/functions/v1/chat-lite-webhook/${line.id}`,
      headers: { 'x-channel-token': line.token },
      payload: { type: 'status', id: await externalIdOf(t, by[amal.id].message_id!), status: 'read' },
    });
    await c.customerWrites(line, badr.phones[0], 'Anyone?');
    await waitFor(
      () => outboxOf(t, 'message.received'),
      (all) => all.length === 4,
    );
    // Every event so far is consumed before the checks (the relay works in order).
    await waitFor(
      () =>
        c.runtime.db.systemQuery<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [
          t.ctx.organizationId,
        ]),
      ([row]) => row.n === 0,
    );
    expect(await outboxOf(t, 'broadcast.response')).toHaveLength(1);
    const after = Object.fromEntries((await recipients(t, id)).map((r) => [r.contact_id, r]));
    expect(after[amal.id]).toMatchObject({ status: 'replied', replied_at: by[amal.id].replied_at });
    expect(after[badr.id]).toMatchObject({ status: 'sent', replied_at: null });

    const report = (await get(t, `broadcasts/${id}/report`)).json();
    expect(report).toMatchObject({ counts: { replied: 1, sent: 1, total: 2 }, reply_rate: 0.5, read_rate: 0.5 });
    const csv = (await get(t, `broadcasts/${id}/report`, { accept: 'text/csv' })).body.split('\r\n');
    expect(csv[0]).toBe('contact_id,phone,status,error,message_id,queued_at,sent_at,delivered_at,read_at,replied_at,failed_at');
    expect(csv.find((line) => line.startsWith(amal.id))).toContain(',replied,');
  });

  it('should refuse a bad reply_window_hours or auto_pause_after_failures with a 400 naming it', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const amal = await c.contact(t, { first_name: 'Amal', phones: [c.newPhone()], opt_in_status: true });
    const base = { name: 'Sale', channel_account_id: account, audience: { contact_ids: [amal.id] }, content: { text: 'Hi' } };
    const cases: [string, unknown][] = [
      ['reply_window_hours', 0],
      ['reply_window_hours', 721],
      ['reply_window_hours', 1.5],
      ['reply_window_hours', '72'],
      ['reply_window_hours', null],
      ['reply_window_hours', 1e308],
      ['auto_pause_after_failures', -1],
      ['auto_pause_after_failures', 1001],
      ['auto_pause_after_failures', '5'],
      ['auto_pause_after_failures', [5]],
    ];
    for (const [field, value] of cases) {
      const res = await post(t, 'broadcasts', { ...base, [field]: value });
      const said = String(res.json().error ?? res.json().message);
      expect({ field, value, status: res.statusCode, names: said.startsWith(`${field}: must be a whole number`) }).toEqual({
        field,
        value,
        status: 400,
        names: true,
      });
    }
    const ok = await post(t, 'broadcasts', { ...base, reply_window_hours: 720, auto_pause_after_failures: 0 });
    expect(ok.json()).toMatchObject({ reply_window_hours: 720, auto_pause_after_failures: 0 });
  });
});

describe('auto-pause', () => {
  it('should pause the broadcast after auto_pause_after_failures provider failures in a row, show why, and send the rest on resume', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const people = [];
    for (let i = 0; i < 8; i += 1) people.push(await c.contact(t, { first_name: `P${i}`, phones: [c.newPhone()], opt_in_status: true }));
    // Personalised: one provider call per recipient. Calls 1, 2, 4, 5 and 6 fail.
    const id = await broadcastTo(
      t,
      account,
      people.map((p) => p.id),
      { auto_pause_after_failures: 3 },
      'Hi {{contact.first_name}}, 20% off',
    );
    let calls = 0;
    c.provider.script = () => {
      calls += 1;
      return [1, 2, 4, 5, 6].includes(calls) ? { status: 500, body: { status: false, message: 'upstream unavailable' } } : undefined;
    };
    try {
      const pass = passWith(1);
      const worker = c.app.get(OutboundQueueWorker);
      // One recipient at a time, each outcome applied before the next is handed out.
      for (let handed = 0; handed < 8; handed += 1) {
        const status = (await get(t, `broadcasts/${id}`)).json().status;
        if (status !== 'sending') break;
        await pass.pass();
        while (await worker.sendOn(account));
        await waitFor(
          () => recipients(t, id),
          (rows) => rows.filter((r) => r.status !== 'queued').length === handed + 1,
        );
        await waitFor(
          () =>
            c.runtime.db.systemQuery<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [
              t.ctx.organizationId,
            ]),
          ([row]) => row.n === 0,
        );
      }
      const paused = (await get(t, `broadcasts/${id}`)).json();
      expect(paused).toMatchObject({ status: 'paused', counts: { failed: 5, sent: 1, queued: 2 } });
      expect(paused.pause_reason).toMatch(/^paused after 3 provider failures in a row; the last: .*upstream unavailable/);
      expect((await get(t, `broadcasts/${id}/report`)).json()).toMatchObject({ status: 'paused', pause_reason: paused.pause_reason });
      // Nothing more is handed out while paused.
      await pass.pass();
      while (await worker.sendOn(account));
      expect(calls).toBe(6);

      // Resumed, with the provider answering again: the rest go, once each, and the reason is gone.
      const resumed = await post(t, `broadcasts/${id}/resume`);
      expect(resumed.json()).toMatchObject({ status: 'sending', pause_reason: null });
      const rows = await waitFor(
        async () => {
          await pass.pass();
          while (await worker.sendOn(account));
          return recipients(t, id);
        },
        (all) => all.every((r) => r.status !== 'queued'),
      );
      expect(rows.filter((r) => r.status === 'sent')).toHaveLength(3);
      expect(calls).toBe(8);
    } finally {
      c.provider.script = () => undefined;
    }
  });

  it('should never pause when auto_pause_after_failures is 0', async () => {
    const t = await c.newTenant();
    // The account's own auto-pause (the queue's, per account) set out of the way.
    const account = await c.chatAccount(t, { ...UNPACED_PACING, auto_pause_after_failures: 1000 });
    const people = [];
    for (let i = 0; i < 7; i += 1) people.push(await c.contact(t, { first_name: `Q${i}`, phones: [c.newPhone()], opt_in_status: true }));
    const id = await broadcastTo(
      t,
      account,
      people.map((p) => p.id),
      { auto_pause_after_failures: 0 },
      'Hi {{contact.first_name}}',
    );
    c.provider.script = () => ({ status: 500, body: { status: false, message: 'down' } });
    try {
      const rows = await waitFor(
        async () => {
          await c.app.get(BroadcastPass).pass();
          while (await c.app.get(OutboundQueueWorker).sendOn(account));
          return recipients(t, id);
        },
        (all) => all.every((r) => r.status === 'failed'),
      );
      expect(rows).toHaveLength(7);
      const done = await waitFor(
        async () => {
          await c.app.get(BroadcastPass).pass();
          return (await get(t, `broadcasts/${id}`)).json();
        },
        (b) => b.status === 'completed',
      );
      expect(done).toMatchObject({ status: 'completed', pause_reason: null });
    } finally {
      c.provider.script = () => undefined;
    }
  });
});

async function externalIdOf(t: TestTenant, messageId: string): Promise<string> {
  const [row] = await c.runtime.db.inTenant(t.ctx, (tx) => tx.query<{ external_id: string }>('SELECT external_id FROM messages WHERE id = $1', [messageId]));
  return row.external_id;
}
