import { InboundProcessor, OutboundDispatcher, OutboundQueueWorker } from '@engage/messaging';
import { postSigned } from '@engage/messaging/testing';
import { OrganizationService, OrganizationSettings } from '@engage/identity';
import type { TestTenant } from '@engage/identity/testing';
import { type CampaignsApp, waitFor } from '../testing/campaigns-test-app';
import { SMS_PUBLIC_URL, type SmsCampaignsApp, startSmsCampaignsApp } from '../testing/sms-campaigns-app';
import { RecipientZones } from './recipient-zones';
import { SequencePass } from './sequence-pass';

// SMS sequences against the Twilio-style fake: the api listens on 127.0.0.1 (the fake's callbacks
// and the inbound webhook come there), PUBLIC_URL is what the provider is given.
let sms: SmsCampaignsApp;
let c: CampaignsApp;
let fake: SmsCampaignsApp['fake'];
let appBase = '';
beforeAll(async () => {
  sms = await startSmsCampaignsApp('+1646557');
  ({ c, fake, appBase } = sms);
});
afterAll(() => sms.close());

const PUBLIC_URL = SMS_PUBLIC_URL;
const phone = () => sms.phone();

const smsAccount = (t: TestTenant) => sms.smsAccount(t, 'Drip');

const passAt = (now: () => Date) => new SequencePass(c.runtime.db, c.app.get(OutboundDispatcher), new RecipientZones(c.app.get(OrganizationSettings)), { now });

// The local time in a zone, "HH:MM".
const localTime = (at: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(at));

describe('SMS sequences', () => {
  it('should text each step from the account’s number, time at_time in the organization’s zone, and record a refused step', async () => {
    const t = await c.newTenant();
    // US numbers span several zones: the organization's zone applies (the queue's rule).
    await c.app.get(OrganizationService).setSetting(t.ctx.organizationId, 'time_zone', 'America/New_York');
    const account = await smsAccount(t);
    const amal = await c.contact(t, { first_name: 'Amal', phones: [phone()], opt_in_status: true });
    const sami = await c.contact(t, { first_name: 'Sami', phones: [phone()], opt_in_status: true });
    const created = await c.app.inject({
      method: 'POST',
      url: '/functions/v1/campaigns/sequences',
      headers: t.session,
      payload: {
        name: 'SMS drip',
        channel_account_id: account.id,
        steps: [
          { delay: {}, content: { text: 'Hi {{contact.first_name}}, welcome. Reply STOP to opt out' } },
          { delay: { days: 1 }, at_time: '10:00', content: { text: 'Your tip of the day' } },
        ],
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    await c.app.inject({ method: 'POST', url: `/functions/v1/campaigns/sequences/${id}/activate`, headers: t.session });
    // Sami sent STOP to the account's number: SMS refuses automated sends to him.
    const inbound = `/functions/v1/sms-webhook/${account.id}`;
    const stop = { MessageSid: `SM${'7'.repeat(32)}`, AccountSid: account.sid, From: sami.phones[0], To: account.from, Body: 'STOP', NumMedia: '0' };
    expect((await postSigned(`${appBase}${inbound}`, `${PUBLIC_URL}${inbound}`, stop, account.token)).status).toBe(200);
    while ((await c.app.get(InboundProcessor).processDue()) > 0);
    // The keyword opted him out (campaigns' opt-out keywords); a member then sets opt_in_status back
    // by hand, without a START: SMS's own rule still refuses the step.
    const contactRow = async () =>
      (await c.app.inject({ method: 'GET', url: `/rest/v1/contacts?id=eq.${sami.id}&select=opt_in_status`, headers: t.session })).json();
    expect(await waitFor(contactRow, (rows) => rows[0]?.opt_in_status === false)).toEqual([{ opt_in_status: false }]);
    const byHand = await c.app.inject({ method: 'PATCH', url: `/rest/v1/contacts?id=eq.${sami.id}`, headers: t.session, payload: { opt_in_status: true } });
    expect(byHand.statusCode).toBeLessThan(300);
    const enrolled = await c.app.inject({
      method: 'POST',
      url: `/functions/v1/campaigns/sequences/${id}/enrollments`,
      headers: t.session,
      payload: { contact_ids: [amal.id, sami.id] },
    });
    expect(enrolled.json()).toMatchObject({ enrolled: 2 });

    const now = Date.now() + 1_000;
    const before = fake.calls.length;
    await passAt(() => new Date(now)).pass();
    while (await c.app.get(OutboundQueueWorker).sendOn(account.id));
    const calls = fake.calls.slice(before).filter((call) => call.method === 'POST');
    expect(calls.map((call) => [call.form.To, call.form.From, call.form.Body])).toEqual([
      [amal.phones[0], account.from, 'Hi Amal, welcome. Reply STOP to opt out'],
    ]);
    const rows = (
      await c.app.inject({
        method: 'GET',
        url: `/rest/v1/sequence_enrollments?sequence_id=eq.${id}&select=contact_id,current_step,next_step_at`,
        headers: t.session,
      })
    ).json() as { contact_id: string; current_step: number; next_step_at: string }[];
    const byContact = Object.fromEntries(rows.map((r) => [r.contact_id, r]));
    // Step two: a day after step one's hand-over, at 10:00 New York time.
    for (const row of rows) {
      expect(row.current_step).toBe(1);
      expect(localTime(row.next_step_at, 'America/New_York')).toBe('10:00');
      const wait = new Date(row.next_step_at).getTime() - now;
      expect(wait).toBeGreaterThanOrEqual(86_400_000);
      expect(wait).toBeLessThan(2 * 86_400_000);
    }
    // Sami's step was refused when stored, recorded with the reason; his run goes on.
    const steps = await c.runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ enrollment_contact: string; message_id: string | null; error: string | null }>(
        `SELECT e.contact_id AS enrollment_contact, s.message_id, s.error FROM sequence_step_sends s JOIN sequence_enrollments e ON e.id = s.enrollment_id
         WHERE e.sequence_id = $1`,
        [id],
      ),
    );
    const stepOf = Object.fromEntries(steps.map((s) => [s.enrollment_contact, s]));
    expect(stepOf[amal.id]).toMatchObject({ message_id: expect.any(String), error: null });
    expect(stepOf[sami.id]).toMatchObject({ message_id: null, error: expect.stringMatching(/^sms\.opted_out: /) });
    expect(byContact[sami.id].current_step).toBe(1);
  });
});
