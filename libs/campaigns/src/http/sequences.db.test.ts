import { randomUUID } from 'node:crypto';
import { memberHeaders, type TestTenant } from '@engage/identity/testing';
import { type CampaignsApp, startCampaignsApp } from '../testing/campaigns-test-app';

let c: CampaignsApp;
beforeAll(async () => {
  c = await startCampaignsApp();
});
afterAll(() => c.close());

const call = (t: TestTenant | Record<string, string>, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  c.app.inject({
    method,
    url: url.startsWith('/') ? url : `/functions/v1/campaigns/${url}`,
    headers: 'session' in t ? (t as TestTenant).session : (t as Record<string, string>),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

// An account of another kind, as the data API serves it to campaigns.
async function accountOfKind(t: TestTenant, kind: string) {
  const id = await c.chatAccount(t);
  await c.runtime.db.systemQuery('UPDATE channel_accounts SET kind = $2 WHERE id = $1', [id, kind]);
  return id;
}

const step = (text = 'Hi {{contact.first_name | there}}', extra: object = {}) => ({ delay: { hours: 1 }, content: { text }, ...extra });

// Each case: the body, the status, and what the answer must name (its path or reason).
type Case = [unknown, number, RegExp];

async function expectAnswers(send: (payload: unknown) => Promise<{ statusCode: number; json: () => Record<string, unknown> }>, cases: Case[]) {
  for (const [payload, status, named] of cases) {
    const res = await send(payload);
    const label = JSON.stringify(payload)?.slice(0, 120);
    expect({ label, status: res.statusCode }).toEqual({ label, status });
    const body = res.json();
    expect(`${String(body.error ?? body.message)} ${JSON.stringify(body.details ?? {})}`).toMatch(named);
  }
}

describe('sequences over HTTP', () => {
  it('should create, list, read and change sequences, each answer whole', async () => {
    const t = await c.newTenant();
    const account = await c.chatAccount(t);
    const created = await call(t, 'POST', 'sequences', {
      name: ' Welcome ',
      channel_account_id: account,
      steps: [step(), { delay: { days: 2 }, at_time: '09:30', content: { text: 'Photo', media_url: 'https://cdn.example.com/a.png', media_kind: 'image' } }],
    });
    expect(created.statusCode).toBe(201);
    const sequence = created.json();
    expect(sequence).toMatchObject({
      name: 'Welcome',
      status: 'draft',
      version: 1,
      channel_kind: 'chat_app',
      exit_on: { reply: true, opt_out: true, conversation_resolved: false },
      steps: [
        { delay: { days: 0, hours: 1, minutes: 0, seconds: 0 }, at_time: null, content: { text: 'Hi {{contact.first_name | there}}', media_url: null } },
        { at_time: '09:30', content: { media_kind: 'image' } },
      ],
      enrollments: { active: 0, completed: 0, exited: 0, paused: 0 },
    });
    // A draft changes in place; an active one gets a new version.
    expect((await call(t, 'PATCH', `sequences/${sequence.id}`, { name: 'Welcome 2', steps: [step('One')] })).json()).toMatchObject({
      name: 'Welcome 2',
      version: 1,
    });
    await call(t, 'POST', `sequences/${sequence.id}/activate`);
    expect((await call(t, 'PATCH', `sequences/${sequence.id}`, { exit_on: { reply: false } })).json()).toMatchObject({
      version: 2,
      exit_on: { reply: false, opt_out: true, conversation_resolved: false },
      steps: [{ content: { text: 'One' } }],
    });
    expect((await call(t, 'PATCH', `sequences/${sequence.id}`, { name: 'Renamed' })).json()).toMatchObject({ version: 2, name: 'Renamed' });
    expect((await call(t, 'GET', 'sequences')).json()).toMatchObject({ total: 1, sequences: [{ id: sequence.id, status: 'active' }] });
    expect((await call(t, 'GET', 'sequences?status=draft')).json()).toMatchObject({ total: 0, sequences: [] });
    // Read-only through the data API, and only the organization's.
    const rest = await call(t, 'GET', `/rest/v1/sequences?id=eq.${sequence.id}&select=id,version,status`);
    expect(rest.json()).toEqual([{ id: sequence.id, version: 2, status: 'active' }]);
    expect((await call(t, 'POST', '/rest/v1/sequences', { name: 'x' })).statusCode).toBe(405);
    expect((await call(t, 'POST', '/rest/v1/sequence_enrollments', { sequence_id: sequence.id })).statusCode).toBe(405);
    const other = await c.newTenant();
    expect((await call(other, 'GET', `/rest/v1/sequences?id=eq.${sequence.id}`)).json()).toEqual([]);
  });

  it('should answer bad sequences with a 400 naming the path, a 422 for channels that cannot send them, never a 500', async () => {
    const t = await c.newTenant();
    const other = await c.newTenant();
    const account = await c.chatAccount(t);
    const theirs = await c.chatAccount(other);
    const sms = await accountOfKind(t, 'sms');
    const messenger = await accountOfKind(t, 'messenger');
    const good = { name: 'S', channel_account_id: account, steps: [step()] };
    await expectAnswers(
      (payload) => call(t, 'POST', 'sequences', payload),
      [
        [[1], 400, /body/],
        [{ ...good, name: undefined }, 400, /name/],
        [{ ...good, name: 7 }, 400, /name/],
        [{ ...good, name: 'n'.repeat(201) }, 400, /name/],
        [{ ...good, channel_account_id: 'x' }, 400, /channel_account_id/],
        [{ ...good, channel_account_id: theirs }, 404, /channel_account/],
        [{ ...good, channel_account_id: messenger }, 422, /messenger channel account cannot send sequences/],
        [{ ...good, steps: undefined }, 400, /steps/],
        [{ ...good, steps: [] }, 400, /steps/],
        [{ ...good, steps: 'one' }, 400, /steps/],
        [{ ...good, steps: Array(21).fill(step()) }, 400, /at most 20 steps/],
        [{ ...good, steps: [7] }, 400, /steps\[0\]/],
        [{ ...good, steps: [step(), { ...step(), wait: 1 }] }, 400, /steps\[1\]\.wait/],
        [{ ...good, steps: [step(), { ...step(), delay: 5 }] }, 400, /steps\[1\]\.delay/],
        [{ ...good, steps: [{ ...step(), delay: { weeks: 1 } }] }, 400, /steps\[0\]\.delay\.weeks/],
        [{ ...good, steps: [{ ...step(), delay: { hours: -1 } }] }, 400, /steps\[0\]\.delay\.hours/],
        [{ ...good, steps: [{ ...step(), delay: { minutes: 1.5 } }] }, 400, /steps\[0\]\.delay\.minutes/],
        [{ ...good, steps: [{ ...step(), delay: { days: '1' } }] }, 400, /steps\[0\]\.delay\.days/],
        [{ ...good, steps: [{ ...step(), delay: { days: 31 } }] }, 400, /at most 30 days/],
        [{ ...good, steps: [{ ...step(), at_time: '24:00' }] }, 400, /steps\[0\]\.at_time/],
        [{ ...good, steps: [{ ...step(), at_time: 930 }] }, 400, /steps\[0\]\.at_time/],
        [{ ...good, steps: [{ delay: {} }] }, 400, /steps\[0\]\.content/],
        [{ ...good, steps: [step('')] }, 400, /steps\[0\]\.content\.text/],
        [{ ...good, steps: [step('x'.repeat(4097))] }, 400, /at most 4096/],
        [{ ...good, steps: [step('Hi {{contact.shoe}}')] }, 400, /not a field/],
        [{ ...good, steps: [{ delay: {}, content: { text: 'x', media_url: 'http://x.example/a.png' } }] }, 400, /steps\[0\]\.content\.media_url/],
        [{ ...good, channel_account_id: sms, steps: [step('x'.repeat(1601))] }, 400, /at most 1600/],
        [{ ...good, channel_account_id: sms, steps: [{ delay: {}, content: { text: 'x', media_url: 'https://x.example/a.png' } }] }, 422, /text only/],
        [{ ...good, exit_on: true }, 400, /exit_on/],
        [{ ...good, exit_on: { reply: 'yes' } }, 400, /exit_on\.reply/],
        [{ ...good, exit_on: { opt_out: false } }, 400, /exit_on\.opt_out/],
        [{ ...good, exit_on: { bounce: true } }, 400, /exit_on\.bounce/],
        [{ ...good, extra: 1 }, 400, /extra/],
      ],
    );
    const created = await call(t, 'POST', 'sequences', { ...good, channel_account_id: sms });
    expect(created.json()).toMatchObject({ channel_kind: 'sms' });
    const id = created.json().id as string;
    await expectAnswers(
      (payload) => call(t, 'PATCH', `sequences/${id}`, payload),
      [
        [{}, 400, /body/],
        [[], 400, /body/],
        [{ name: '' }, 400, /name/],
        [{ channel_account_id: account }, 400, /channel_account_id/],
        [{ steps: [{ delay: {}, content: { text: 'x', media_url: 'https://x.example/a.png' } }] }, 422, /text only/],
        [{ steps: [step('x'.repeat(1601))] }, 400, /steps\[0\]\.content\.text/],
      ],
    );
    expect((await call(t, 'PATCH', `sequences/not-a-uuid`, { name: 'x' })).statusCode).toBe(400);
    expect((await call(other, 'PATCH', `sequences/${id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await call(t, 'GET', 'sequences/not-a-uuid')).statusCode).toBe(400);
    expect((await call(t, 'GET', `sequences/${randomUUID()}`)).statusCode).toBe(404);
    expect((await call(other, 'GET', `sequences/${id}`)).statusCode).toBe(404);
    expect((await call(t, 'GET', 'sequences?status=done')).statusCode).toBe(400);
    expect((await call(t, 'GET', 'sequences?limit=0')).statusCode).toBe(400);
    expect((await call(t, 'GET', 'sequences?limit=abc')).statusCode).toBe(400);
  });

  it('should refuse moves the status does not allow, other organizations and members who do not manage campaigns', async () => {
    const t = await c.newTenant();
    const other = await c.newTenant();
    const account = await c.chatAccount(t);
    const id = (await call(t, 'POST', 'sequences', { name: 'S', channel_account_id: account, steps: [step()] })).json().id as string;
    expect((await call(t, 'POST', `sequences/${id}/pause`)).json()).toMatchObject({ code: 'campaigns.invalid_transition' });
    expect((await call(t, 'POST', `sequences/${id}/pause`)).statusCode).toBe(409);
    expect((await call(t, 'POST', `sequences/${id}/activate`)).statusCode).toBe(200);
    expect((await call(t, 'POST', `sequences/${id}/activate`)).statusCode).toBe(409);
    expect((await call(other, 'POST', `sequences/${id}/pause`)).statusCode).toBe(404);
    expect((await call(t, 'POST', `sequences/not-a-uuid/activate`)).statusCode).toBe(400);
    const agent = await memberHeaders(c.app, t, 'AGENT');
    expect((await call(agent, 'POST', `sequences/${id}/pause`)).statusCode).toBe(403);
    expect((await call(agent, 'POST', 'sequences', { name: 'S', channel_account_id: account, steps: [step()] })).statusCode).toBe(403);
    expect((await call(agent, 'PATCH', `sequences/${id}`, { name: 'x' })).statusCode).toBe(403);
    expect((await call(agent, 'GET', `sequences/${id}`)).statusCode).toBe(200);
  });

  it('should answer bad enrolments and exits with a clear 4xx', async () => {
    const t = await c.newTenant();
    const other = await c.newTenant();
    const account = await c.chatAccount(t);
    const id = (await call(t, 'POST', 'sequences', { name: 'S', channel_account_id: account, steps: [step()] })).json().id as string;
    const person = await c.contact(t, { phones: [c.newPhone()], opt_in_status: true });
    const stranger = await c.contact(other, { phones: [c.newPhone()], opt_in_status: true });
    // Not active yet.
    expect((await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [person.id] })).statusCode).toBe(409);
    await call(t, 'POST', `sequences/${id}/activate`);
    const theirSegment = await c.app.inject({
      method: 'POST',
      url: '/rest/v1/segments',
      headers: { ...other.session, prefer: 'return=representation' },
      payload: { name: 'Theirs', filter: '' },
    });
    expect(theirSegment.statusCode).toBe(201);
    const theirSegmentId = theirSegment.json()[0].id as string;
    await expectAnswers(
      (payload) => call(t, 'POST', `sequences/${id}/enrollments`, payload),
      [
        [[], 400, /body/],
        [{}, 400, /body/],
        [{ contact_ids: [person.id], segment_id: randomUUID() }, 400, /body/],
        [{ filter: 'tags=cs.{vip}' }, 400, /body/],
        [{ contact_ids: [] }, 400, /contact_ids/],
        [{ contact_ids: 'x' }, 400, /contact_ids/],
        [{ contact_ids: [person.id, 'x'] }, 400, /contact_ids\[1\]/],
        [{ contact_ids: Array(10_001).fill(person.id) }, 400, /at most 10000/],
        [{ contact_ids: [stranger.id] }, 404, /contact/],
        [{ segment_id: 'x' }, 400, /segment_id/],
        [{ segment_id: theirSegmentId }, 404, /segment/],
      ],
    );
    expect((await call(other, 'POST', `sequences/${id}/enrollments`, { contact_ids: [stranger.id] })).statusCode).toBe(404);
    const agent = await memberHeaders(c.app, t, 'AGENT');
    expect((await call(agent, 'POST', `sequences/${id}/enrollments`, { contact_ids: [person.id] })).statusCode).toBe(403);

    expect((await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [person.id] })).json()).toMatchObject({ enrolled: 1 });
    const [enrollment] = (await call(t, 'GET', `/rest/v1/sequence_enrollments?sequence_id=eq.${id}`)).json();
    expect(enrollment).toMatchObject({ contact_id: person.id, version: 1, status: 'active', current_step: 0, exit_reason: null });
    expect((await call(other, 'GET', `/rest/v1/sequence_enrollments?id=eq.${enrollment.id}`)).json()).toEqual([]);
    expect((await call(t, 'DELETE', `/rest/v1/sequence_enrollments?id=eq.${enrollment.id}`)).statusCode).toBe(405);
    expect((await call(t, 'DELETE', `sequences/${id}/enrollments/not-a-uuid`)).statusCode).toBe(400);
    expect((await call(t, 'DELETE', `sequences/${id}/enrollments/${randomUUID()}`)).statusCode).toBe(404);
    expect((await call(t, 'DELETE', `sequences/${randomUUID()}/enrollments/${enrollment.id}`)).statusCode).toBe(404);
    expect((await call(other, 'DELETE', `sequences/${id}/enrollments/${enrollment.id}`)).statusCode).toBe(404);
    expect((await call(agent, 'DELETE', `sequences/${id}/enrollments/${enrollment.id}`)).statusCode).toBe(403);
    const exited = await call(t, 'DELETE', `sequences/${id}/enrollments/${enrollment.id}`);
    expect(exited.statusCode).toBe(200);
    expect(exited.json()).toMatchObject({ id: enrollment.id, status: 'exited', exit_reason: 'manual', next_step_at: null });
    expect((await call(t, 'DELETE', `sequences/${id}/enrollments/${enrollment.id}`)).json()).toMatchObject({ code: 'campaigns.enrollment_ended' });
    expect((await call(t, 'DELETE', `sequences/${id}/enrollments/${enrollment.id}`)).statusCode).toBe(409);
    // Exited: a new run may start.
    expect((await call(t, 'POST', `sequences/${id}/enrollments`, { contact_ids: [person.id] })).json()).toMatchObject({ enrolled: 1, already_enrolled: 0 });

    // A segment's contacts: the reachable enrolled, the others counted by reason, a running one kept.
    for (const [name, fields] of [
      ['Dana', { phones: [c.newPhone()], opt_in_status: true }],
      ['Nour', { phones: [c.newPhone()], opt_in_status: false }],
      ['Omar', { opt_in_status: true }],
    ] as const) {
      await c.contact(t, { first_name: name, tags: ['drip'], ...fields });
    }
    await c.runtime.db.systemQuery(`UPDATE contacts SET tags = ARRAY['drip'] WHERE id = $1`, [person.id]);
    const segment = await c.app.inject({
      method: 'POST',
      url: '/rest/v1/segments',
      headers: { ...t.session, prefer: 'return=representation' },
      payload: { name: 'Drip', filter: 'tags=cs.{drip}' },
    });
    const bySegment = await call(t, 'POST', `sequences/${id}/enrollments`, { segment_id: segment.json()[0].id });
    expect(bySegment.json()).toEqual({ enrolled: 1, already_enrolled: 1, skipped: { no_opt_in: 1, no_phone: 1 } });
  });
});
