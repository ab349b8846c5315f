import { InboundProcessor, OutboundQueueWorker } from '@engage/messaging';
import { postSigned } from '@engage/messaging/testing';
import type { TestTenant } from '@engage/identity/testing';
import { BroadcastPass } from './broadcast-pass';
import { type CampaignsApp, waitFor } from '../testing/campaigns-test-app';
import { SMS_PUBLIC_URL, type SmsCampaignsApp, startSmsCampaignsApp } from '../testing/sms-campaigns-app';

// SMS broadcasts end to end against the Twilio-style fake: the api listens on 127.0.0.1 (the fake
// posts its signed status callbacks there), PUBLIC_URL is what the provider is given.
let sms: SmsCampaignsApp;
let c: CampaignsApp;
let fake: SmsCampaignsApp['fake'];
let appBase = '';
beforeAll(async () => {
  sms = await startSmsCampaignsApp('+1646555');
  ({ c, fake, appBase } = sms);
});
afterAll(() => sms.close());

const PUBLIC_URL = SMS_PUBLIC_URL;
const phone = () => sms.phone();

const post = (t: TestTenant, url: string, payload?: object) =>
  c.app.inject({ method: 'POST', url: `/functions/v1/campaigns/${url}`, headers: t.session, ...(payload ? { payload } : {}) });

const smsAccount = (t: TestTenant) => sms.smsAccount(t, 'Offers');

type Recipient = { contact_id: string; status: string; phone: string | null; message_id: string | null; error: string | null };
const recipients = async (t: TestTenant, id: string): Promise<Recipient[]> =>
  (await c.app.inject({ method: 'GET', url: `/rest/v1/broadcast_recipients?broadcast_id=eq.${id}&order=created_at`, headers: t.session })).json();

describe('SMS broadcasts', () => {
  it('should send one SMS per recipient with its own text, skip opted-out numbers, and follow the status callbacks', async () => {
    const t = await c.newTenant();
    const account = await smsAccount(t);
    const people = {
      amal: await c.contact(t, { first_name: 'Amal', tags: ['sms'], phones: [phone()], opt_in_status: true }),
      badr: await c.contact(t, { first_name: 'Badr', tags: ['sms'], phones: [phone()], opt_in_status: true }),
      stop: await c.contact(t, { first_name: 'Sami', tags: ['sms'], phones: [phone()], opt_in_status: true }),
      noOptIn: await c.contact(t, { first_name: 'Nour', tags: ['sms'], phones: [phone()], opt_in_status: false }),
    };
    // Sami replied STOP to the account's number: SMS refuses automated sends to him until START.
    const inbound = `/functions/v1/sms-webhook/${account.id}`;
    const stop = { MessageSid: `SM${'5'.repeat(32)}`, AccountSid: account.sid, From: people.stop.phones[0], To: account.from, Body: 'STOP', NumMedia: '0' };
    expect((await postSigned(`${appBase}${inbound}`, `${PUBLIC_URL}${inbound}`, stop, account.token)).status).toBe(200);
    while ((await c.app.get(InboundProcessor).processDue()) > 0);
    // The keyword opted him out (campaigns' opt-out keywords); a member then sets opt_in_status back
    // by hand, without a START: SMS's own rule still refuses the send.
    const optedOut = await waitFor(
      async () => (await c.app.inject({ method: 'GET', url: `/rest/v1/contacts?id=eq.${people.stop.id}&select=opt_in_status`, headers: t.session })).json(),
      (rows) => rows[0]?.opt_in_status === false,
    );
    expect(optedOut).toEqual([{ opt_in_status: false }]);
    const byHand = await c.app.inject({
      method: 'PATCH',
      url: `/rest/v1/contacts?id=eq.${people.stop.id}`,
      headers: t.session,
      payload: { opt_in_status: true },
    });
    expect(byHand.statusCode).toBeLessThan(300);

    const segment = await c.app.inject({
      method: 'POST',
      url: '/rest/v1/segments',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: { name: 'SMS', filter: 'tags=cs.{sms}' },
    });
    const text = 'Hi {{contact.first_name | there}}, 20% off today. Reply STOP to opt out';
    const media = await post(t, 'broadcasts', {
      name: 'SMS sale',
      channel_account_id: account.id,
      audience: { segment_id: segment.json()[0].id },
      content: { text, media_url: 'https://cdn.example.com/a.png', media_kind: 'image' },
    });
    expect([media.statusCode, media.json().code]).toEqual([422, 'campaigns.sms_no_media']);
    const created = await post(t, 'broadcasts', {
      name: 'SMS sale',
      channel_account_id: account.id,
      audience: { segment_id: segment.json()[0].id },
      content: { text },
    });
    expect(created.json()).toMatchObject({ status: 'draft', channel_kind: 'sms', personalised: true });
    const id = created.json().id as string;
    expect((await post(t, `broadcasts/${id}/start`)).json()).toMatchObject({ status: 'sending', counts: { queued: 3, skipped_no_opt_in: 1 } });

    const before = fake.calls.length;
    const rows = await waitFor(
      async () => {
        await c.app.get(BroadcastPass).pass();
        while (await c.app.get(OutboundQueueWorker).sendOn(account.id));
        return recipients(t, id);
      },
      (all) => all.every((r) => r.status !== 'queued'),
    );
    const by = Object.fromEntries(rows.map((r) => [r.contact_id, r]));
    expect(by[people.amal.id].status).toBe('sent');
    expect(by[people.badr.id].status).toBe('sent');
    expect(by[people.stop.id]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^sms\.opted_out: .*STOP/) });
    expect(by[people.noOptIn.id].status).toBe('skipped_no_opt_in');
    // One Messages API call per recipient, from the account's number, with the recipient's own text.
    const calls = fake.calls.slice(before).filter((call) => call.method === 'POST');
    expect(calls.map((call) => [call.form.To, call.form.From, call.form.Body]).sort()).toEqual(
      [
        [people.amal.phones[0], account.from, 'Hi Amal, 20% off today. Reply STOP to opt out'],
        [people.badr.phones[0], account.from, 'Hi Badr, 20% off today. Reply STOP to opt out'],
      ].sort(),
    );

    // The provider's signed callbacks: Amal's delivered, Badr's undelivered.
    const sidOf = async (messageId: string | null) =>
      (await c.runtime.db.inTenant(t.ctx, (tx) => tx.query<{ external_id: string }>('SELECT external_id FROM messages WHERE id = $1', [messageId])))[0]
        .external_id;
    expect((await fake.status(await sidOf(by[people.amal.id].message_id), { MessageStatus: 'delivered' })).status).toBe(200);
    expect((await fake.status(await sidOf(by[people.badr.id].message_id), { MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(200);
    const report = await waitFor(
      async () => {
        // Callbacks are stored when they come and applied by messaging's inbound processor.
        while ((await c.app.get(InboundProcessor).processDue()) > 0);
        await c.app.get(BroadcastPass).pass();
        return (await c.app.inject({ method: 'GET', url: `/functions/v1/campaigns/broadcasts/${id}/report`, headers: t.session })).json();
      },
      (r) => r.status === 'completed' && r.counts.delivered === 1 && r.counts.failed === 2,
    );
    expect(report).toMatchObject({ status: 'completed', counts: { delivered: 1, failed: 2, skipped_no_opt_in: 1, total: 4 }, delivery_rate: 0.3333 });
    expect(report.failures_by_reason.map((f: { reason: string }) => f.reason).sort()).toEqual([
      expect.stringMatching(/^sms\.opted_out/),
      'undelivered (ErrorCode 30003)',
    ]);
  });

  it('should mark an SMS reply within the window replied with broadcast.response, and not one after it', async () => {
    const t = await c.newTenant();
    const account = await smsAccount(t);
    const amal = await c.contact(t, { first_name: 'Amal', phones: [phone()], opt_in_status: true });
    const badr = await c.contact(t, { first_name: 'Badr', phones: [phone()], opt_in_status: true });
    const created = await post(t, 'broadcasts', {
      name: 'SMS sale',
      channel_account_id: account.id,
      audience: { contact_ids: [amal.id, badr.id] },
      content: { text: 'Sale today' },
      reply_window_hours: 24,
    });
    const id = created.json().id as string;
    await post(t, `broadcasts/${id}/start`);
    await waitFor(
      async () => {
        await c.app.get(BroadcastPass).pass();
        while (await c.app.get(OutboundQueueWorker).sendOn(account.id));
        return recipients(t, id);
      },
      (all) => all.every((r) => r.status === 'sent'),
    );
    // Badr's message left 25 hours ago.
    await c.runtime.db.systemQuery(`UPDATE broadcast_recipients SET sent_at = sent_at - interval '25 hours' WHERE broadcast_id = $1 AND contact_id = $2`, [
      id,
      badr.id,
    ]);
    const inbound = `/functions/v1/sms-webhook/${account.id}`;
    for (const [i, who] of [amal, badr].entries()) {
      const params = {
        MessageSid: `SM${String(700 + i).padStart(32, '7')}`,
        AccountSid: account.sid,
        From: who.phones[0],
        To: account.from,
        Body: 'Is it on?',
      };
      expect((await postSigned(`${appBase}${inbound}`, `${PUBLIC_URL}${inbound}`, params, account.token)).status).toBe(200);
    }
    while ((await c.app.get(InboundProcessor).processDue()) > 0);
    const unpublished = () =>
      c.runtime.db.systemQuery<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [
        t.ctx.organizationId,
      ]);
    await waitFor(unpublished, ([row]) => row.n === 0);
    const by = Object.fromEntries((await recipients(t, id)).map((r) => [r.contact_id, r.status]));
    expect(by).toEqual({ [amal.id]: 'replied', [badr.id]: 'sent' });
    const responses = await c.runtime.db.systemQuery<{ payload: { contact_id: string; broadcast_id: string } }>(
      `SELECT payload FROM outbox WHERE organization_id = $1 AND type = 'broadcast.response'`,
      [t.ctx.organizationId],
    );
    expect(responses.map((r) => [r.payload.broadcast_id, r.payload.contact_id])).toEqual([[id, amal.id]]);
  });

  it.each([
    ['a short text', 'Hello', 'GSM-7', 1],
    ['160 septets', 'a'.repeat(160), 'GSM-7', 1],
    ['161 septets', 'a'.repeat(161), 'GSM-7', 2],
    ['two full parts', 'a'.repeat(306), 'GSM-7', 2],
    ['one septet more', 'a'.repeat(307), 'GSM-7', 3],
    ['80 euro signs (two septets each)', '€'.repeat(80), 'GSM-7', 1],
    ['81 euro signs', '€'.repeat(81), 'GSM-7', 2],
    // 306 septets would fill two parts, but the pair moves whole to the second and pushes one septet into a third.
    ['an escape pair not split across parts', `${'a'.repeat(152)}[${'a'.repeat(152)}`, 'GSM-7', 3],
    ['Arabic', 'مرحبا', 'UCS-2', 1],
    ['70 UCS-2 units', 'م'.repeat(70), 'UCS-2', 1],
    ['71 UCS-2 units', 'م'.repeat(71), 'UCS-2', 2],
    ['35 emoji (surrogate pairs)', '😀'.repeat(35), 'UCS-2', 1],
    ['36 emoji', '😀'.repeat(36), 'UCS-2', 2],
  ])('should preview an SMS text through HTTP: %s', async (_label, text, encoding, segments) => {
    const t = await c.newTenant();
    const account = await smsAccount(t);
    const res = await post(t, 'content/preview', { channel_account_id: account.id, text });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ text, encoding, segments });
  });

  it('should preview the text as the contact gets it: a name outside GSM-7 makes the message UCS-2', async () => {
    const t = await c.newTenant();
    const account = await smsAccount(t);
    const zoe = await c.contact(t, { first_name: 'Zoë', phones: [phone()] });
    const text = 'Hi {{contact.first_name | there}}, your order shipped';
    const general = await post(t, 'content/preview', { channel_account_id: account.id, text });
    expect(general.json()).toEqual({ text: 'Hi there, your order shipped', encoding: 'GSM-7', segments: 1 });
    const personal = await post(t, 'content/preview', { channel_account_id: account.id, text, contact_id: zoe.id });
    expect(personal.json()).toEqual({ text: 'Hi Zoë, your order shipped', encoding: 'UCS-2', segments: 1 });
    const cases: [object, number, string][] = [
      [{ channel_account_id: account.id, text: 'x'.repeat(1601) }, 400, 'text'],
      [{ channel_account_id: account.id, text: '' }, 400, 'text'],
      [{ channel_account_id: account.id, text: 'Hi', contact_id: 'nope' }, 400, 'contact_id'],
      [{ channel_account_id: account.id, text: 'Hi', contact_id: '00000000-0000-4000-8000-000000000000' }, 404, 'contact'],
      [{ channel_account_id: account.id, text: 'Hi', extra: 1 }, 400, 'extra'],
    ];
    for (const [payload, status, names] of cases) {
      const res = await post(t, 'content/preview', payload);
      expect({ payload, status: res.statusCode, body: JSON.stringify(res.json()).includes(names) }).toEqual({ payload, status, body: true });
    }
  });
});
