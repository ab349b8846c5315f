import type { TestTenant } from '@engage/identity/testing';
import { OrganizationSettings } from '@engage/identity';
import { InboundProcessor, OutboundDispatcher, OutboundQueueWorker } from '@engage/messaging';
import type { Clock } from '@engage/shared-kernel';
import { type CampaignsApp, startCampaignsApp, waitFor } from '../testing/campaigns-test-app';
import { SYSTEM_DUE_STEPS } from '../infrastructure/sequences.sql';
import { RecipientZones } from './recipient-zones';
import { SequencePass } from './sequence-pass';
import { SequencesService } from './sequences.service';

let c: CampaignsApp;
beforeAll(async () => {
  c = await startCampaignsApp();
});
afterAll(() => c.close());

const DAY = 86_400_000;
const HOUR = 3_600_000;

const call = (t: TestTenant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  c.app.inject({ method, url: `/functions/v1/campaigns/${url}`, headers: t.session, ...(payload === undefined ? {} : { payload: payload as object }) });

type Enrollment = {
  id: string;
  contact_id: string;
  version: number;
  status: string;
  exit_reason: string | null;
  current_step: number;
  next_step_at: string | null;
};
const enrollments = async (t: TestTenant, sequenceId: string): Promise<Enrollment[]> =>
  (await c.app.inject({ method: 'GET', url: `/rest/v1/sequence_enrollments?sequence_id=eq.${sequenceId}&order=created_at,id`, headers: t.session })).json();

// A pass of its own on a clock the test moves.
const passAt = (now: () => Date) => {
  const clock: Clock = { now };
  return new SequencePass(c.runtime.db, c.app.get(OutboundDispatcher), new RecipientZones(c.app.get(OrganizationSettings)), clock);
};

// The queue's worker sends whatever the pass handed over.
async function drain(accountId: string) {
  while (await c.app.get(OutboundQueueWorker).sendOn(accountId));
}

const digits = (phone: string) => phone.replace(/^\+/, '');
const textsTo = (phone: string) => c.provider.callsTo(digits(phone)).map((call) => call.body.UOWCHAT.message);

// A chat-app account whose inbound token the test keeps, so its customers can answer.
async function line(t: TestTenant) {
  const res = await c.app.inject({
    method: 'POST',
    url: '/functions/v1/messaging/channel-accounts',
    headers: t.key,
    payload: { kind: 'chat_app', name: 'Drip' },
  });
  const { channel_account, inbound_token } = res.json() as { channel_account: { id: string }; inbound_token: string };
  await c.runtime.db.systemQuery(
    `UPDATE channel_accounts SET pacing = '{"gap_seconds":[0,0],"cold_gap_seconds":[0,0],"per_hour":null,"per_day":null,"warmup":false,"per_recipient_min_gap_seconds":0,"per_recipient_per_hour":3600,"quiet_hours":null}' WHERE id = $1`,
    [channel_account.id],
  );
  let n = 0;
  const customerWrites = async (phone: string, text: string) => {
    const posted = await c.app.inject({
      method: 'POST',
      url: `/functions/v1/chat-lite-webhook/${channel_account.id}`,
      headers: { 'x-channel-token': inbound_token },
      payload: { type: 'message', id: `seq-${channel_account.id}-${++n}`, from: digits(phone), text },
    });
    if (posted.statusCode !== 200) throw new Error(posted.body);
    while ((await c.app.get(InboundProcessor).processDue()) > 0);
  };
  return { accountId: channel_account.id, customerWrites };
}

const THREE_STEPS = [
  { delay: {}, content: { text: 'Welcome {{contact.first_name | friend}}' } },
  { delay: { days: 1 }, content: { text: 'Day two, {{contact.first_name}}' } },
  { delay: { hours: 2 }, content: { text: 'Last one' } },
];

async function activeSequence(t: TestTenant, accountId: string, steps: unknown[] = THREE_STEPS, exitOn?: object) {
  const created = await call(t, 'POST', 'sequences', { name: 'Onboarding', channel_account_id: accountId, steps, ...(exitOn ? { exit_on: exitOn } : {}) });
  expect(created.statusCode).toBe(201);
  const id = created.json().id as string;
  expect((await call(t, 'POST', `sequences/${id}/activate`)).json()).toMatchObject({ status: 'active', version: 1 });
  return id;
}

const person = (t: TestTenant, first_name: string, extra: object = {}) => c.contact(t, { first_name, phones: [c.newPhone()], opt_in_status: true, ...extra });

describe('drip sequences', () => {
  it('should send three steps on their delays, once each, and refuse re-enrolment while the run is active', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId);
    const amal = await person(t, 'Amal');
    const badr = await person(t, 'Badr');
    const nour = await person(t, 'Nour', { opt_in_status: false });
    const omar = await c.contact(t, { first_name: 'Omar', opt_in_status: true });
    const start = Date.now();
    const enrolled = await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id, badr.id, nour.id, omar.id] });
    expect(enrolled.statusCode).toBe(200);
    expect(enrolled.json()).toEqual({ enrolled: 2, already_enrolled: 0, skipped: { no_opt_in: 1, no_phone: 1 } });
    expect((await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id] })).json()).toEqual({
      enrolled: 0,
      already_enrolled: 1,
      skipped: { no_opt_in: 0, no_phone: 0 },
    });

    let now = start + 1_000;
    const pass = passAt(() => new Date(now));
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual(['Welcome Amal']);
    expect(textsTo(badr.phones[0])).toEqual(['Welcome Badr']);
    let rows = await enrollments(t, id);
    expect(rows.map((r) => [r.status, r.current_step, r.version])).toEqual([
      ['active', 1, 1],
      ['active', 1, 1],
    ]);
    // Step two counts one day from step one's hand-over.
    expect(new Date(rows[0].next_step_at!).getTime()).toBe(now + DAY);

    now += DAY - 1_000;
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toHaveLength(1);
    now += 1_000;
    await pass.pass();
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual(['Welcome Amal', 'Day two, Amal']);
    now += 2 * HOUR;
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual(['Welcome Amal', 'Day two, Amal', 'Last one']);
    expect(textsTo(badr.phones[0])).toEqual(['Welcome Badr', 'Day two, Badr', 'Last one']);
    rows = await enrollments(t, id);
    expect(rows.map((r) => [r.status, r.current_step, r.next_step_at])).toEqual([
      ['completed', 3, null],
      ['completed', 3, null],
    ]);
    // Nothing more after the last step, whatever the clock.
    now += 30 * DAY;
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toHaveLength(3);
    // The messages carry the sequence as their origin.
    const messages = await c.runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ origin: string; origin_id: string }>(`SELECT origin, origin_id FROM messages WHERE contact_id = $1 AND direction = 'OUTBOUND'`, [amal.id]),
    );
    expect(messages).toEqual(Array(3).fill({ origin: 'sequence', origin_id: id }));
    // A completed run can be followed by a new one.
    expect((await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id] })).json()).toMatchObject({ enrolled: 1 });
    expect((await call(t, 'GET', `sequences/${id}`)).json().enrollments).toEqual({ active: 1, completed: 2, exited: 0, paused: 0 });
  });

  it('should end the run when the customer replies before step two, and send nothing more', async () => {
    const t = await c.newTenant();
    const { accountId, customerWrites } = await line(t);
    const id = await activeSequence(t, accountId);
    const amal = await person(t, 'Amal');
    const rana = await person(t, 'Rana');
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id, rana.id] });
    let now = Date.now() + 1_000;
    const pass = passAt(() => new Date(now));
    await pass.pass();
    await drain(accountId);
    await customerWrites(amal.phones[0], 'Thanks, who is this?');
    const rows = await waitFor(
      () => enrollments(t, id),
      (list) => list.some((r) => r.status === 'exited'),
    );
    expect(rows.find((r) => r.contact_id === amal.id)).toMatchObject({ status: 'exited', exit_reason: 'reply', current_step: 1, next_step_at: null });
    now += DAY + 1_000;
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual(['Welcome Amal']);
    expect(textsTo(rana.phones[0])).toEqual(['Welcome Rana', 'Day two, Rana']);
  });

  it('should end the run on an opt-out (the CRM event), and check the opt-in again when a step fires', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId);
    const amal = await person(t, 'Amal');
    const dina = await person(t, 'Dina');
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id, dina.id] });
    let now = Date.now() + 1_000;
    const pass = passAt(() => new Date(now));
    await pass.pass();
    await drain(accountId);
    // Amal opts out through the API (contact.updated); Dina's row changes without an event.
    const patched = await c.app.inject({
      method: 'PATCH',
      url: `/rest/v1/contacts?id=eq.${amal.id}`,
      headers: t.session,
      payload: { opt_in_status: false },
    });
    expect(patched.statusCode).toBeLessThan(300);
    await waitFor(
      () => enrollments(t, id),
      (list) => list.some((r) => r.contact_id === amal.id && r.status === 'exited'),
    );
    await c.runtime.db.systemQuery(`UPDATE contacts SET opt_in_status = false WHERE id = $1`, [dina.id]);
    now += DAY + 1_000;
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual(['Welcome Amal']);
    expect(textsTo(dina.phones[0])).toEqual(['Welcome Dina']);
    const rows = await enrollments(t, id);
    expect(Object.fromEntries(rows.map((r) => [r.contact_id, [r.status, r.exit_reason]]))).toEqual({
      [amal.id]: ['exited', 'opt_out'],
      [dina.id]: ['exited', 'opt_out'],
    });
  });

  it('should end the run when the conversation is resolved, only where the sequence asks for it', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const asks = await activeSequence(t, accountId, THREE_STEPS, { conversation_resolved: true });
    const amal = await person(t, 'Amal');
    await call(t, 'POST', `sequences/${asks}/enrollments`, { contact_ids: [amal.id] });
    const other = await activeSequence(t, accountId);
    await call(t, 'POST', `sequences/${other}/enrollments`, { contact_ids: [amal.id] });
    await passAt(() => new Date(Date.now() + 1_000)).pass();
    await drain(accountId);
    const [conversation] = await c.runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ id: string }>(`SELECT id FROM conversations WHERE contact_id = $1`, [amal.id]),
    );
    const resolved = await c.app.inject({
      method: 'PATCH',
      url: `/functions/v1/messaging/conversations/${conversation.id}/status`,
      headers: t.session,
      payload: { status: 'RESOLVED' },
    });
    expect(resolved.statusCode).toBe(200);
    const rows = await waitFor(
      () => enrollments(t, asks),
      (list) => list[0].status === 'exited',
    );
    expect(rows[0]).toMatchObject({ status: 'exited', exit_reason: 'conversation_resolved' });
    expect((await enrollments(t, other))[0]).toMatchObject({ status: 'active', exit_reason: null });
  });

  it('should keep a running enrolment on its version when the sequence is changed, and give new ones the new version', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId);
    const first = await person(t, 'Amal');
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [first.id] });
    const changed = await call(t, 'PATCH', `sequences/${id}`, {
      steps: [
        { delay: {}, content: { text: 'New welcome' } },
        { delay: { days: 1 }, content: { text: 'New day two' } },
      ],
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ version: 2, status: 'active', steps: [{ content: { text: 'New welcome' } }, { content: { text: 'New day two' } }] });
    const second = await person(t, 'Badr');
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [second.id] });
    let now = Date.now() + 1_000;
    const pass = passAt(() => new Date(now));
    for (const step of [0, DAY + 1_000, 2 * HOUR + 1_000]) {
      now += step;
      await pass.pass();
      await drain(accountId);
    }
    expect(textsTo(first.phones[0])).toEqual(['Welcome Amal', 'Day two, Amal', 'Last one']);
    expect(textsTo(second.phones[0])).toEqual(['New welcome', 'New day two']);
    expect((await enrollments(t, id)).map((r) => [r.version, r.status])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
  });

  it('should hold the steps while the sequence is paused and go on when it is activated again', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId);
    const amal = await person(t, 'Amal');
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id] });
    expect((await call(t, 'POST', `sequences/${id}/pause`)).json()).toMatchObject({ status: 'paused', enrollments: { paused: 1, active: 0 } });
    expect((await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id] })).statusCode).toBe(409);
    const pass = passAt(() => new Date(Date.now() + 1_000));
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual([]);
    expect((await call(t, 'POST', `sequences/${id}/activate`)).json()).toMatchObject({ status: 'active', enrollments: { paused: 0, active: 1 } });
    await pass.pass();
    await drain(accountId);
    expect(textsTo(amal.phones[0])).toEqual(['Welcome Amal']);
  });

  it('should send each step once when two workers race over the same due enrolments', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId);
    const people = await Promise.all(Array.from({ length: 8 }, (_, i) => person(t, `P${i}`)));
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: people.map((p) => p.id) });
    let now = Date.now() + 1_000;
    const one = passAt(() => new Date(now));
    const two = passAt(() => new Date(now));
    await Promise.all([one.pass(), two.pass(), one.pass(), two.pass()]);
    // The same enrolment fired by both at once.
    const [target] = await enrollments(t, id);
    await Promise.all([one.fire(t.ctx.organizationId, target.id), two.fire(t.ctx.organizationId, target.id)]);
    await drain(accountId);
    now += DAY + 1_000;
    await Promise.all([one.pass(), two.pass(), one.pass(), two.pass()]);
    await drain(accountId);
    for (const [i, p] of people.entries()) expect(textsTo(p.phones[0])).toEqual([`Welcome P${i}`, `Day two, P${i}`]);
    const steps = await c.runtime.db.inTenant(t.ctx, (tx) =>
      tx.query<{ step: number; n: number }>(
        `SELECT s.step, count(*)::int AS n FROM sequence_step_sends s JOIN sequence_enrollments e ON e.id = s.enrollment_id
         WHERE e.sequence_id = $1 AND s.message_id IS NOT NULL GROUP BY s.step ORDER BY s.step`,
        [id],
      ),
    );
    expect(steps).toEqual([
      { step: 0, n: 8 },
      { step: 1, n: 8 },
    ]);
  });

  it('should time at_time steps in each recipient’s zone across a DST change, on an injected clock', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId, [
      { delay: {}, content: { text: 'One' } },
      { delay: { hours: 1 }, at_time: '09:00', content: { text: 'Two' } },
      { delay: { days: 1 }, at_time: '09:00', content: { text: 'Three' } },
    ]);
    // A German number (Berlin moves from UTC+1 to UTC+2 on 2026-03-29) and an Egyptian one (UTC+2 then).
    const berlin = await c.contact(t, { first_name: 'Lena', phones: ['+4915112340001'], opt_in_status: true });
    const cairo = await c.contact(t, { first_name: 'Amal', phones: [c.newPhone()], opt_in_status: true });
    let now = Date.parse('2026-03-28T06:00:00Z');
    const clock = { now: () => new Date(now) };
    const app = c.app.get(SequencesService);
    const service = new SequencesService(c.runtime.db, app['tables'], app['audiences'], app['zones'], clock);
    expect(await service.enrollAudience(t.ctx, id, { contactIds: [berlin.id, cairo.id] })).toMatchObject({ enrolled: 2 });
    const pass = passAt(() => new Date(now));
    const nextOf = async () =>
      Object.fromEntries((await enrollments(t, id)).map((r) => [r.contact_id, r.next_step_at && new Date(r.next_step_at).toISOString()]));
    now += 1_000;
    await pass.pass();
    await drain(accountId);
    // An hour later it is 08:00 in Berlin (09:00 comes the same day) and 09:00 in Cairo (passed: the next day).
    expect(await nextOf()).toEqual({ [berlin.id]: '2026-03-28T08:00:00.000Z', [cairo.id]: '2026-03-29T07:00:00.000Z' });
    now = Date.parse('2026-03-28T08:00:00Z');
    await pass.pass();
    await drain(accountId);
    expect(textsTo(berlin.phones[0])).toEqual(['One', 'Two']);
    expect(textsTo(cairo.phones[0])).toEqual(['One']);
    // A day after, across the change, 09:00 in Berlin is 07:00 UTC (it was 08:00 UTC the day before).
    expect((await nextOf())[berlin.id]).toBe('2026-03-30T07:00:00.000Z');
    now = Date.parse('2026-03-30T07:00:00Z');
    await pass.pass();
    await drain(accountId);
    expect(textsTo(berlin.phones[0])).toEqual(['One', 'Two', 'Three']);
    expect(textsTo(cairo.phones[0])).toEqual(['One', 'Two']);
  });

  it('should find due steps through the partial index on next_step_at', async () => {
    const t = await c.newTenant();
    const { accountId } = await line(t);
    const id = await activeSequence(t, accountId);
    const amal = await person(t, 'Amal');
    await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [amal.id] });
    // Many ended runs and many runs not due yet beside the due one, as a long-lived sequence has.
    await c.runtime.db.systemQuery(
      `INSERT INTO sequence_enrollments (organization_id, sequence_id, version, contact_id, status, current_step, next_step_at, enrolled_at, completed_at)
       SELECT $1, $2, 1, gen_random_uuid(), CASE WHEN i % 2 = 0 THEN 'completed' ELSE 'active' END, 1,
              CASE WHEN i % 2 = 0 THEN NULL ELSE now() + make_interval(hours => i) END, now(), CASE WHEN i % 2 = 0 THEN now() END
       FROM generate_series(1, 20000) AS i`,
      [t.ctx.organizationId, id],
    );
    await c.runtime.db.systemQuery('ANALYZE sequence_enrollments');
    const [plan] = await c.runtime.db.systemQuery<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${SYSTEM_DUE_STEPS}`, [new Date(), 100]);
    expect(JSON.stringify(plan['QUERY PLAN'])).toContain('"Index Name":"sequence_enrollments_due_idx"');
    const due = await c.runtime.db.systemQuery<{ id: string }>(SYSTEM_DUE_STEPS, [new Date(), 100]);
    expect(due.map((row) => row.id)).toContain((await enrollments(t, id)).find((r) => r.contact_id === amal.id)!.id);
  });
});
