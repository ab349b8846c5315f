import type { TestTenant } from '@engage/identity/testing';
import { InboundProcessor } from '@engage/messaging';
import { type CampaignsApp, waitFor } from '../testing/campaigns-test-app';
import { type SmsCampaignsApp, startSmsCampaignsApp } from '../testing/sms-campaigns-app';

// Opt-out and opt-in keywords through messaging's public inbound webhooks (the chat app's, and the
// Twilio-style fake's signed SMS), the organization's settings, and a later broadcast.
let sms: SmsCampaignsApp;
let c: CampaignsApp;
beforeAll(async () => {
  sms = await startSmsCampaignsApp('+1646556');
  c = sms.c;
});
afterAll(() => sms.close());

let counter = 0;
const usPhone = () => sms.phone();

type ContactRow = { id: string; opt_in_status: boolean | null };
const contactOf = async (t: TestTenant, id: string): Promise<ContactRow> =>
  (await c.app.inject({ method: 'GET', url: `/rest/v1/contacts?id=eq.${id}&select=id,opt_in_status`, headers: t.session })).json()[0];
const timelineOf = async (t: TestTenant, contactId: string): Promise<{ type: string; summary: string; data: Record<string, unknown> }[]> =>
  (
    await c.app.inject({
      method: 'GET',
      url: `/rest/v1/timeline_entries?contact_id=eq.${contactId}&type=like.contact.opted*&select=type,summary,data&order=occurred_at`,
      headers: t.session,
    })
  ).json();
const outboxOf = (t: TestTenant, type: string) =>
  c.runtime.db.asSystem((tx) =>
    tx.query<{ source: string; payload: Record<string, unknown> }>('SELECT source, payload FROM outbox WHERE organization_id = $1 AND type = $2 ORDER BY seq', [
      t.ctx.organizationId,
      type,
    ]),
  );
// Until every event of the organization is relayed and consumed (the in-process bus marks a batch
// after its consumers ran).
const settled = (t: TestTenant) =>
  waitFor(
    () =>
      c.runtime.db.systemQuery<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND published_at IS NULL', [
        t.ctx.organizationId,
      ]),
    ([row]) => row.n === 0,
  );
const settings = (t: TestTenant, payload: object) => c.app.inject({ method: 'PATCH', url: '/functions/v1/organization/settings', headers: t.session, payload });

const smsLine = (t: TestTenant) => sms.smsAccount(t);

// A signed inbound SMS through the public webhook (the api answers in-process), then processed as
// messaging's inbound worker would.
async function smsFrom(line: Awaited<ReturnType<typeof smsLine>>, from: string, body: string) {
  expect(await sms.inboundSms(line, from, body, `SM${String(++counter).padStart(32, '0')}`)).toBe(200);
  while ((await c.app.get(InboundProcessor).processDue()) > 0);
}

describe('opt-out keywords', () => {
  it('should opt a chat-app contact out on STOP and back in on START, on the timeline, and skip them in a later broadcast', async () => {
    const t = await c.newTenant();
    const line = await c.chatLine(t);
    const amal = await c.contact(t, { first_name: 'Amal', phones: [c.newPhone()], opt_in_status: true });
    const badr = await c.contact(t, { first_name: 'Badr', phones: [c.newPhone()], opt_in_status: true });

    await c.customerWrites(line, amal.phones[0], '  Stop \n');
    await c.customerWrites(line, badr.phones[0], 'please stop sending me offers');
    await settled(t);
    expect(await contactOf(t, amal.id)).toEqual({ id: amal.id, opt_in_status: false });
    expect(await contactOf(t, badr.id)).toEqual({ id: badr.id, opt_in_status: true });
    const [optedOut] = await outboxOf(t, 'contact.opted_out');
    expect(optedOut).toEqual({
      source: 'campaigns',
      payload: expect.objectContaining({ contact_id: amal.id, opt_in_status: false, keyword: 'STOP', channel_kind: 'chat_app', channel_account_id: line.id }),
    });
    expect(await outboxOf(t, 'contact.updated')).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ contact: expect.objectContaining({ id: amal.id, opt_in_status: false }) }) }),
    ]);
    expect(await timelineOf(t, amal.id)).toEqual([
      { type: 'contact.opted_out', summary: 'Opted out: wrote STOP on the chat app', data: expect.objectContaining({ keyword: 'STOP' }) },
    ]);

    // A broadcast now skips Amal.
    const created = await c.app.inject({
      method: 'POST',
      url: '/functions/v1/campaigns/broadcasts',
      headers: t.session,
      payload: { name: 'Sale', channel_account_id: line.id, audience: { contact_ids: [amal.id, badr.id] }, content: { text: 'Sale' } },
    });
    const started = await c.app.inject({ method: 'POST', url: `/functions/v1/campaigns/broadcasts/${created.json().id}/start`, headers: t.session });
    expect(started.json()).toMatchObject({ counts: { queued: 1, skipped_no_opt_in: 1 } });

    // START opts her in again; a second START changes nothing more but is on the timeline too.
    await c.customerWrites(line, amal.phones[0], 'start');
    await settled(t);
    expect(await contactOf(t, amal.id)).toEqual({ id: amal.id, opt_in_status: true });
    expect((await outboxOf(t, 'contact.opted_in')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ contact_id: amal.id, opt_in_status: true, keyword: 'START' }),
    ]);
    expect((await timelineOf(t, amal.id)).map((e) => e.type)).toEqual(['contact.opted_out', 'contact.opted_in']);
  });

  it('should opt an SMS contact out on STOP and in on UNSTOP', async () => {
    const t = await c.newTenant();
    const line = await smsLine(t);
    const phone = usPhone();
    const sami = await c.contact(t, { first_name: 'Sami', phones: [phone], opt_in_status: true });
    await smsFrom(line, phone, 'STOP');
    await settled(t);
    expect(await contactOf(t, sami.id)).toEqual({ id: sami.id, opt_in_status: false });
    expect((await outboxOf(t, 'contact.opted_out')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ contact_id: sami.id, channel_kind: 'sms', keyword: 'STOP' }),
    ]);
    expect((await timelineOf(t, sami.id)).map((e) => e.summary)).toEqual(['Opted out: wrote STOP on SMS']);
    await smsFrom(line, phone, 'Unstop');
    await settled(t);
    expect(await contactOf(t, sami.id)).toEqual({ id: sami.id, opt_in_status: true });
  });

  it('should use the organization’s own keywords instead of the defaults, and leave other organizations to theirs', async () => {
    const t = await c.newTenant();
    const other = await c.newTenant();
    expect((await settings(t, { opt_out_keywords: ['ARRET', 'توقف'], opt_in_keywords: ['OUI'] })).statusCode).toBe(200);
    const line = await c.chatLine(t);
    const otherLine = await c.chatLine(other);
    const nadia = await c.contact(t, { first_name: 'Nadia', phones: [c.newPhone()], opt_in_status: true });
    const omar = await c.contact(t, { first_name: 'Omar', phones: [c.newPhone()], opt_in_status: true });
    const theirs = await c.contact(other, { first_name: 'Tarek', phones: [c.newPhone()], opt_in_status: true });

    await c.customerWrites(line, nadia.phones[0], 'STOP');
    await c.customerWrites(line, omar.phones[0], 'توقف');
    await c.customerWrites(otherLine, theirs.phones[0], 'arret');
    await settled(t);
    await settled(other);
    expect(await contactOf(t, nadia.id)).toEqual({ id: nadia.id, opt_in_status: true });
    expect(await contactOf(t, omar.id)).toEqual({ id: omar.id, opt_in_status: false });
    expect(await contactOf(other, theirs.id)).toEqual({ id: theirs.id, opt_in_status: true });
    await c.customerWrites(line, omar.phones[0], 'oui');
    await settled(t);
    expect(await contactOf(t, omar.id)).toEqual({ id: omar.id, opt_in_status: true });
    // The setting's checks: a 400 naming it, nothing stored.
    const refused = await settings(t, { opt_out_keywords: ['two words'] });
    expect([refused.statusCode, refused.json().code, refused.json().error]).toEqual([400, 'validation_failed', expect.stringContaining('opt_out_keywords')]);
  });
});
