import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { PlatformRuntime } from '@engage/platform';
import { CompanyService, ContactService, DealService } from '@engage/crm';
import { startComposedApp } from './composed-app';

describe('CRM in the composed api: tasks, notes and company updates through the data API, CSV import', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ runtime, app, close } = await startComposedApp());
  });
  afterAll(() => close());

  const rest = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, t: TestTenant, payload?: unknown) =>
    app.inject({
      method,
      url: `/rest/v1${path}`,
      headers: { ...t.session, prefer: 'return=representation' },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const proxy = (method: 'POST' | 'PATCH', path: string, t: TestTenant, payload: unknown) =>
    app.inject({ method, url: `/functions/v1/rest-api-proxy${path}`, headers: t.key, payload: payload as object });
  const outbox = async (orgId: string, type: string) =>
    runtime.db.asSystem((tx) =>
      tx.query<{ payload: Record<string, unknown> }>('SELECT payload FROM outbox WHERE organization_id = $1 AND type = $2 ORDER BY seq', [orgId, type]),
    );

  it('should create, complete and reopen a task linked to a contact and a deal, with task.created and task.completed', async () => {
    const t = await createTestTenant(app);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Lina' });
    const deal = await app.get(DealService).create(t.ctx, { title: 'Fleet', contact_id: contact.id });
    const created = await rest('POST', '/tasks', t, {
      title: ' Call back ',
      due_at: '2030-01-02T09:00:00Z',
      assignee_id: t.ctx.userId,
      contact_id: contact.id,
      deal_id: deal.id,
    });
    expect(created.statusCode).toBe(201);
    const [task] = created.json();
    expect(new Date(task.due_at).toISOString()).toBe('2030-01-02T09:00:00.000Z');
    expect(task).toMatchObject({
      title: 'Call back',
      done: false,
      done_at: null,
      contact_id: contact.id,
      deal_id: deal.id,
      company_id: null,
      created_by: t.ctx.userId,
    });
    const done = await rest('PATCH', `/tasks?id=eq.${task.id}`, t, { done: true });
    expect(done.statusCode).toBe(200);
    expect(done.json()[0]).toMatchObject({ done: true, done_at: expect.any(String) });
    const [completed] = await outbox(t.ctx.organizationId, 'task.completed');
    expect(completed.payload).toMatchObject({ task: { id: task.id, done: true }, actor_id: t.ctx.userId });
    expect((await outbox(t.ctx.organizationId, 'task.created'))[0].payload).toMatchObject({ task: { id: task.id }, actor_id: t.ctx.userId });
    // Saving it done again is not a second completion; reopening clears done_at.
    await rest('PATCH', `/tasks?id=eq.${task.id}`, t, { done: true, description: 'left a voicemail' });
    expect(await outbox(t.ctx.organizationId, 'task.completed')).toHaveLength(1);
    expect((await rest('PATCH', `/tasks?id=eq.${task.id}`, t, { done: false })).json()[0]).toMatchObject({ done: false, done_at: null });
    const open = await rest('GET', `/tasks?deal_id=eq.${deal.id}&done=is.false&select=id,title,contacts(first_name)`, t);
    expect(open.json()).toEqual([{ id: task.id, title: 'Call back', contacts: { first_name: 'Lina' } }]);
    // Deleting the deal deletes its tasks.
    await rest('DELETE', `/deals?id=eq.${deal.id}`, t);
    expect((await rest('GET', `/tasks?id=eq.${task.id}`, t)).json()).toEqual([]);
  });

  it('should write notes with the author and note.created, on companies too', async () => {
    const t = await createTestTenant(app);
    const company = await app.get(CompanyService).create(t.ctx, { name: 'Acme' });
    const created = await rest('POST', '/notes', t, { body: 'Prefers email', company_id: company.id });
    expect(created.statusCode).toBe(201);
    const [note] = created.json();
    expect(note).toMatchObject({ body: 'Prefers email', author_id: t.ctx.userId, company_id: company.id });
    // The answer is PostgreSQL's JSON (PostgREST's timestamp form); the event carries ISO strings.
    const sameInstant = (row: Record<string, unknown>) => ({
      ...row,
      created_at: new Date(String(row.created_at)).toISOString(),
      updated_at: new Date(String(row.updated_at)).toISOString(),
    });
    const [event] = await outbox(t.ctx.organizationId, 'note.created');
    expect({ ...event.payload, note: sameInstant(event.payload.note as Record<string, unknown>) }).toEqual({ note: sameInstant(note), actor_id: t.ctx.userId });
    const edited = await proxy('PATCH', `/notes?id=eq.${note.id}`, t, { body: 'Prefers phone' });
    expect(edited.json()[0]).toMatchObject({ body: 'Prefers phone', author_id: t.ctx.userId });
  });

  it('should refuse bad tasks and notes with clear 4xx and never link into another organization', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const mine = await app.get(ContactService).create(a.ctx, { first_name: 'Mine' });
    const theirs = await app.get(ContactService).create(b.ctx, { first_name: 'Theirs' });
    const theirDeal = await app.get(DealService).create(b.ctx, { title: 'Theirs' });
    const theirCompany = await app.get(CompanyService).create(b.ctx, { name: 'Theirs' });
    const expectStatus = async (path: string, payload: unknown, status: number, text?: string) => {
      const res = await proxy('POST', path, a, payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status });
      if (text) expect(res.json().error).toContain(text);
    };
    await expectStatus('/tasks', { contact_id: mine.id }, 400, 'title is required');
    await expectStatus('/tasks', { title: 'x'.repeat(201), contact_id: mine.id }, 400, 'at most 200');
    await expectStatus('/tasks', { title: 'T', description: 'x'.repeat(5001), contact_id: mine.id }, 400, 'at most 5000');
    await expectStatus('/tasks', { title: 'T' }, 400, 'at least one of contact_id');
    await expectStatus('/tasks', { title: 42, contact_id: mine.id }, 400, 'title must be a string');
    await expectStatus('/tasks', { title: 'T', contact_id: 'nope' }, 400, 'contact_id must be a UUID');
    await expectStatus('/tasks', { title: 'T', contact_id: mine.id, due_at: 'tomorrow' }, 400, 'due_at');
    await expectStatus('/tasks', { title: 'T', contact_id: mine.id, done: 'yes' }, 400, 'done');
    await expectStatus('/tasks', { title: 'T', contact_id: mine.id, priority: 'high' }, 400, "Could not find the 'priority' column of 'tasks'");
    await expectStatus('/tasks', { title: 'T', contact_id: theirs.id }, 404);
    await expectStatus('/tasks', { title: 'T', deal_id: theirDeal.id }, 404);
    await expectStatus('/tasks', { title: 'T', company_id: theirCompany.id }, 404);
    await expectStatus('/tasks', { title: 'T', contact_id: mine.id, assignee_id: b.ctx.userId }, 400, 'assignee_id');
    await expectStatus('/notes', { contact_id: mine.id }, 400, 'body is required');
    await expectStatus('/notes', { body: '   ', contact_id: mine.id }, 400, 'must not be empty');
    await expectStatus('/notes', { body: 'x'.repeat(10_001), contact_id: mine.id }, 400, 'at most 10000');
    await expectStatus('/notes', { body: 'Hi', contact_id: theirs.id }, 404);
    await expectStatus('/notes', { body: 'Hi' }, 400);
    // A note of their own is invisible to a, and a PATCH cannot unlink or move one of a's notes out.
    const note = (await proxy('POST', '/notes', b, { body: 'secret', contact_id: theirs.id })).json()[0];
    expect((await rest('GET', `/notes?id=eq.${note.id}`, a)).json()).toEqual([]);
    expect((await proxy('PATCH', `/notes?id=eq.${note.id}`, a, { body: 'mine now' })).json()).toEqual([]);
    const task = (await proxy('POST', '/tasks', b, { title: 'their task', deal_id: theirDeal.id })).json()[0];
    expect((await rest('GET', `/tasks?id=eq.${task.id}`, a)).json()).toEqual([]);
    expect((await proxy('PATCH', `/tasks?id=eq.${task.id}`, a, { done: true })).json()).toEqual([]);
    expect((await rest('GET', `/tasks?id=eq.${task.id}&select=done`, b)).json()).toEqual([{ done: false }]);
    const own = (await proxy('POST', '/notes', a, { body: 'own', contact_id: mine.id })).json()[0];
    expect((await proxy('PATCH', `/notes?id=eq.${own.id}`, a, { contact_id: null })).statusCode).toBe(400);
    expect((await proxy('PATCH', `/notes?id=eq.${own.id}`, a, { contact_id: theirs.id })).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/rest/v1/tasks', payload: { title: 'T', contact_id: mine.id } })).statusCode).toBe(401);
    // The timeline is written by the CRM's consumer only.
    expect((await proxy('POST', '/timeline_entries', a, { contact_id: mine.id, summary: 'forged' })).statusCode).toBe(405);
  });

  it('should PATCH a company with the create validation, and only the organization’s own', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const company = await app.get(CompanyService).create(a.ctx, { name: 'Acme', phones: ['+201001234567'] });
    const theirs = await app.get(CompanyService).create(b.ctx, { name: 'Theirs' });
    const patched = await rest('PATCH', `/companies?id=eq.${company.id}`, a, {
      website: ' acme.example ',
      emails: ['Sales@Acme.Example'],
      annual_revenue: 1000,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()[0]).toMatchObject({
      name: 'Acme',
      website: 'acme.example',
      emails: ['sales@acme.example'],
      phones: ['+201001234567'],
      annual_revenue: 1000,
    });
    for (const bad of [
      { name: '' },
      { name: 'x'.repeat(201) },
      { phones: ['12'] },
      { emails: ['nope'] },
      { annual_revenue: -1 },
      { color: 'red' },
      { tags: 'vip' },
    ]) {
      const res = await proxy('PATCH', `/companies?id=eq.${company.id}`, a, bad);
      expect({ bad, status: res.statusCode }).toEqual({ bad, status: 400 });
    }
    expect((await proxy('PATCH', `/companies?id=eq.${theirs.id}`, a, { name: 'Taken' })).json()).toEqual([]);
    expect((await rest('GET', `/companies?id=eq.${theirs.id}&select=name`, b)).json()).toEqual([{ name: 'Theirs' }]);
  });

  it('should import contacts from text/csv and read them back through /rest/v1', async () => {
    const t = await createTestTenant(app);
    const res = await app.inject({
      method: 'POST',
      url: '/functions/v1/contacts/import',
      headers: { ...t.session, 'content-type': 'text/csv' },
      payload: 'first_name,phone\nRana,+20 100 123 4567\nNo country,01001234567\nRana Said,0020 100 123 4567\n',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'completed', created: 1, updated: 1, failed: 1, errors: [{ line: 3, code: 'contact.invalid_phone' }] });
    expect((await rest('GET', '/contacts?select=first_name,phones', t)).json()).toEqual([{ first_name: 'Rana Said', phones: ['+201001234567'] }]);
  });
});
