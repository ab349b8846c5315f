import { randomUUID } from 'node:crypto';
import { OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { ContactService } from '@engage/crm';
import { type CallsApp, mp3Of, multipart, setSuiteId, startCallsApp } from '../testing/calls-test-app';

const URL = '/functions/v1/mobile-api/call-recording';
const REMOTE = 'https://cdn.example.com/suite-7/2026/11/call.mp3';
// How each refusal reads (the client's message names the reason).
const REASONS: Record<string, RegExp> = {
  not_https: /only https:\/\/ addresses are allowed/,
  ip_literal: /IP address targets are not allowed/,
  private_address: /resolves to a non-public address/,
  invalid_url: /not a valid URL|credentials are not allowed/,
};

// §4.4 POST /call-recording by address, its authentication, the contact and agent it is attributed
// to, refused fields, and the records read back through /rest/v1.
describe('POST /functions/v1/mobile-api/call-recording (address, auth, matching)', () => {
  let calls: CallsApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    calls = await startCallsApp();
    tenant = await createTestTenant(calls.app);
    await setSuiteId(calls, tenant.ctx.organizationId, 'suite-7');
  });
  afterAll(() => calls.close());

  const postJson = (payload: unknown, headers: Record<string, string> = tenant.session) =>
    calls.app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
  const recordOf = async (id: string) =>
    (await calls.runtime.db.asSystem((tx) => tx.query<Record<string, unknown>>('SELECT * FROM call_records WHERE id = $1', [id])))[0];
  const setStatus = (userId: string, status: string) =>
    calls.runtime.db.asSystem((tx) => tx.query('UPDATE users SET status = $2 WHERE id = $1', [userId, status]));
  const member = async (t: TestTenant, role: 'AGENT' | 'ADMIN' = 'AGENT') => {
    const email = `agent.${randomUUID()}@example.com`;
    const { user_id } = await calls.app.get(OrganizationService).createUser({
      organizationId: t.ctx.organizationId,
      email,
      password: 'agent password 1',
      role,
    });
    return { email, userId: user_id };
  };

  it('stores a public https address as given, without uploading it', async () => {
    const res = await postJson({ recording_url: REMOTE, customer_phone: '+20 100 000 0000', duration_seconds: 30 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, call_record_id: expect.any(String), status: 'received', contact_matched: false, recording_stored: false });
    const row = await recordOf(res.json().call_record_id);
    expect(row).toMatchObject({ recording_url: REMOTE, recording_key: null, customer_phone: '+20 100 000 0000', duration_seconds: 30, direction: 'inbound' });
  });

  it.each([
    ['plain http', 'http://cdn.example.com/a.mp3', 'not_https'],
    ['another scheme', 'ftp://cdn.example.com/a.mp3', 'not_https'],
    ['a file address', 'file:///etc/passwd', 'not_https'],
    ['an IPv4 literal', 'https://93.184.215.14/a.mp3', 'ip_literal'],
    ['a private IPv4 literal', 'https://10.0.0.1/a.mp3', 'ip_literal'],
    ['an IPv6 literal', 'https://[2606:2800:220:1::1]/a.mp3', 'ip_literal'],
    ['a loopback IPv6 literal', 'https://[::1]/a.mp3', 'ip_literal'],
    ['a mapped IPv4 in IPv6', 'https://[::ffff:127.0.0.1]/a.mp3', 'ip_literal'],
    ['a decimal IPv4', 'https://2130706433/a.mp3', 'ip_literal'],
    ['localhost', 'https://localhost/a.mp3', 'private_address'],
    ['a name resolving to a private address', 'https://db.internal.test/a.mp3', 'private_address'],
    ['a name resolving to the metadata address', 'https://metadata.internal.test/latest', 'private_address'],
    ['a name resolving to a private IPv6 address', 'https://v6.internal.test/a.mp3', 'private_address'],
    ['a name with one private address among public ones', 'https://mixed.internal.test/a.mp3', 'private_address'],
    ['credentials in the address', 'https://user:secret@cdn.example.com/a.mp3', 'invalid_url'],
    ['not an address', 'recording.mp3', 'invalid_url'],
  ])('refuses %s as recording_url (400 naming the reason), registering nothing', async (_name, url, reason) => {
    const before = await calls.runtime.db.asSystem((tx) => tx.query('SELECT count(*)::int AS n FROM call_records'));
    const res = await postJson({ recording_url: url });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'call.invalid_recording_url', error: expect.stringMatching(/^recording_url refused: /) });
    expect(res.json().error).not.toContain('secret');
    expect(res.json().error).toMatch(REASONS[reason]);
    expect(await calls.runtime.db.asSystem((tx) => tx.query('SELECT count(*)::int AS n FROM call_records'))).toEqual(before);
  });

  it('names the reason in the details of a refused address', async () => {
    const res = await postJson({ recording_url: 'https://db.internal.test/a.mp3' });
    expect(res.json().error).toMatch(/non-public address \(10\.0\.0\.12\)/);
  });

  it('attributes a Bearer call to the signed-in agent, and keeps agent_identifier as sent', async () => {
    const res = await postJson({ recording_url: REMOTE, agent_identifier: 'someone.else@example.com' });
    expect(await recordOf(res.json().call_record_id)).toMatchObject({ agent_user_id: tenant.ctx.userId, agent_identifier: 'someone.else@example.com' });
  });

  it('attributes an API key call to the member whose e-mail is agent_identifier, else keeps the text only', async () => {
    const agent = await member(tenant);
    const matched = await postJson({ recording_url: REMOTE, agent_identifier: agent.email.toUpperCase() }, tenant.key);
    expect(matched.statusCode).toBe(200);
    expect(await recordOf(matched.json().call_record_id)).toMatchObject({ agent_user_id: agent.userId, agent_identifier: agent.email.toUpperCase() });
    for (const identifier of ['nobody@example.com', '+201001234567', undefined]) {
      const res = await postJson({ recording_url: REMOTE, agent_identifier: identifier }, tenant.key);
      expect(await recordOf(res.json().call_record_id)).toMatchObject({ agent_user_id: null, agent_identifier: identifier ?? null });
    }
    // A member of another organization is not this one's agent.
    const other = await createTestTenant(calls.app);
    const outsider = await member(other);
    const res = await postJson({ recording_url: REMOTE, agent_identifier: outsider.email }, tenant.key);
    expect(await recordOf(res.json().call_record_id)).toMatchObject({ agent_user_id: null });
  });

  it('answers 401 without credentials or with invalid ones', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-jwt' }, { 'x-api-key': 'eng_not_a_real_key_0000' }, { authorization: 'Basic abc' }] as Record<
      string,
      string
    >[]) {
      const res = await postJson({ recording_url: REMOTE }, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toEqual(expect.any(String));
    }
    const upload = multipart({}, [{ bytes: mp3Of(1024) }]);
    const res = await calls.app.inject({ method: 'POST', url: URL, headers: upload.headers, payload: upload.payload });
    expect(res.statusCode).toBe(401);
  });

  it('answers 403 for a deactivated or suspended account, whether signed in or named by an API key call', async () => {
    const t = await createTestTenant(calls.app);
    await setStatus(t.ctx.userId!, 'deactivated');
    const deactivated = await postJson({ recording_url: REMOTE }, t.session);
    expect(deactivated.statusCode).toBe(403);
    expect(deactivated.json().code).toBe('account_deactivated');
    await setStatus(t.ctx.userId!, 'suspended');
    expect((await postJson({ recording_url: REMOTE }, t.session)).json().code).toBe('account_suspended');
    const agent = await member(tenant);
    await setStatus(agent.userId, 'suspended');
    const named = await postJson({ recording_url: REMOTE, agent_identifier: agent.email }, tenant.key);
    expect(named.statusCode).toBe(403);
    expect(named.json().code).toBe('account_suspended');
  });

  it('matches the contact by contact_id, else by customer_phone in any written form', async () => {
    const contact = await calls.app.get(ContactService).create(tenant.ctx, { first_name: 'Mona', phones: ['+201001112233'] });
    const byId = await postJson({ recording_url: REMOTE, contact_id: contact.id });
    expect(byId.json().contact_matched).toBe(true);
    expect(await recordOf(byId.json().call_record_id)).toMatchObject({ contact_id: contact.id });
    for (const phone of ['+20 100 111 2233', '00201001112233', '201001112233@s.whatsapp.net']) {
      const res = await postJson({ recording_url: REMOTE, customer_phone: phone });
      expect(res.json().contact_matched).toBe(true);
      expect(await recordOf(res.json().call_record_id)).toMatchObject({ contact_id: contact.id, customer_phone: phone });
    }
    const unknown = await postJson({ recording_url: REMOTE, customer_phone: 'not a phone' });
    expect(unknown.json()).toMatchObject({ contact_matched: false });
  });

  it("answers another organization's contact_id as not found, exactly as a made-up one", async () => {
    const other = await createTestTenant(calls.app);
    const theirs = await calls.app.get(ContactService).create(other.ctx, { first_name: 'Secret', phones: ['+201005556677'] });
    const foreign = await postJson({ recording_url: REMOTE, contact_id: theirs.id });
    const madeUp = await postJson({ recording_url: REMOTE, contact_id: randomUUID() });
    expect(foreign.statusCode).toBe(404);
    expect(madeUp.statusCode).toBe(404);
    expect(foreign.json().code).toBe(madeUp.json().code);
    expect(foreign.body).not.toContain('Secret');
    // Their phone does not match here either.
    expect((await postJson({ recording_url: REMOTE, customer_phone: '+201005556677' })).json().contact_matched).toBe(false);
  });

  it.each([
    ['neither file nor address', {}],
    ['an empty address', { recording_url: '' }],
    ['a contact_id that is not a uuid', { recording_url: REMOTE, contact_id: 'contact-1' }],
    ['a duration that is not an integer', { recording_url: REMOTE, duration_seconds: 'long' }],
    ['a negative duration', { recording_url: REMOTE, duration_seconds: -1 }],
    ['a duration of two days', { recording_url: REMOTE, duration_seconds: 172800 }],
    ['a fractional duration', { recording_url: REMOTE, duration_seconds: 1.5 }],
    ['an unknown direction', { recording_url: REMOTE, direction: 'sideways' }],
    ['a call_timestamp that is not ISO 8601', { recording_url: REMOTE, call_timestamp: 'yesterday' }],
    ['a call_timestamp in year 0', { recording_url: REMOTE, call_timestamp: '0000-01-01T00:00:00Z' }],
    ['a call_timestamp on 30 February', { recording_url: REMOTE, call_timestamp: '2026-02-30T10:00:00Z' }],
    ['notes too long', { recording_url: REMOTE, notes: 'n'.repeat(10001) }],
    ['an agent_identifier too long', { recording_url: REMOTE, agent_identifier: `${'a'.repeat(320)}@x.io` }],
    ['a customer_phone too long', { recording_url: REMOTE, customer_phone: '1'.repeat(65) }],
    ['an address too long', { recording_url: `https://cdn.example.com/${'a'.repeat(2048)}` }],
    ['a number as address', { recording_url: 42 }],
    ['an object as notes', { recording_url: REMOTE, notes: { text: 'x' } }],
    ['an unknown field', { recording_url: REMOTE, colour: 'blue' }],
    ['an array body', [REMOTE]],
    ['a NUL character', { recording_url: REMOTE, notes: 'a\u0000b' }],
  ])('refuses %s with 400, never a 500', async (_name, payload) => {
    const res = await postJson(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual(expect.any(String));
  });

  it('refuses the same mistakes in multipart fields (400), and bad JSON', async () => {
    for (const fields of [{ duration_seconds: '12abc' }, { contact_id: 'x' }, { direction: 'up' }, { call_timestamp: '2026-13-40' }] as Record<
      string,
      string
    >[]) {
      const upload = multipart(fields, [{ bytes: mp3Of(1024) }]);
      const res = await calls.app.inject({ method: 'POST', url: URL, headers: { ...tenant.session, ...upload.headers }, payload: upload.payload });
      expect(res.statusCode).toBe(400);
    }
    const badJson = await calls.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...tenant.session, 'content-type': 'application/json' },
      payload: '{"recording_url":',
    });
    expect(badJson.statusCode).toBe(400);
    const text = await calls.app.inject({ method: 'POST', url: URL, headers: { ...tenant.session, 'content-type': 'text/plain' }, payload: REMOTE });
    expect(text.statusCode).toBeGreaterThanOrEqual(400);
    expect(text.statusCode).toBeLessThan(500);
  });

  it('keeps the given call_timestamp, empty fields counting as absent', async () => {
    const res = await postJson({ recording_url: REMOTE, call_timestamp: '2026-11-20T09:30:00+02:00', contact_id: '', notes: '' });
    expect(res.statusCode).toBe(200);
    const row = await recordOf(res.json().call_record_id);
    expect((row.call_timestamp as Date).toISOString()).toBe('2026-11-20T07:30:00.000Z');
    expect(row).toMatchObject({ contact_id: null, notes: null });
  });

  it('serves the records read-only through /rest/v1/call_records, each organization its own', async () => {
    const mine = await calls.app.inject({ method: 'GET', url: '/rest/v1/call_records?select=id,status,recording_url,transcription', headers: tenant.session });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().length).toBeGreaterThan(0);
    expect(mine.json().every((r: { status: string }) => r.status === 'received')).toBe(true);
    const other = await createTestTenant(calls.app);
    const theirs = await calls.app.inject({ method: 'GET', url: '/rest/v1/call_records', headers: other.session });
    expect(theirs.json()).toEqual([]);
    const write = await calls.app.inject({ method: 'POST', url: '/rest/v1/call_records', headers: tenant.session, payload: { recording_url: REMOTE } });
    expect(write.statusCode).toBe(405);
  });
});
