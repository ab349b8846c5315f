import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import { EventSubscriptions, type PlatformRuntime } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { createEvent, defineEvent, isPayloadObject, pickScalars, snippet, uuidOrNull } from '@engage/shared-kernel';
import { ActivityRecordService } from '../application/activity-records.service';
import { CompanyService } from '../application/company.service';
import { ContactService } from '../application/contact.service';
import { DealService } from '../application/deal.service';
import { CrmModule } from '../crm.module';
import { crmManifest, crmMigrations } from '../index';

interface Entry {
  id: string;
  type: string;
  source: string;
  occurred_at: string;
  contact_id: string | null;
  deal_id: string | null;
  company_id: string | null;
  summary: string;
  data: Record<string, unknown>;
}

// A producer of another context, declared here: the CRM knows other contexts' events only through
// the declarations in the catalogue it is given.
const SAID = defineEvent<{ message: Record<string, unknown>; actor_id: string | null }>({
  name: 'widget.said',
  source: 'widgets',
  version: 1,
  description: 'a widget said something to a contact',
  timeline: ({ message }) =>
    isPayloadObject(message)
      ? {
          contact_id: uuidOrNull(message.contact_id),
          deal_id: null,
          summary: `Said: ${snippet(message.content)}`,
          data: pickScalars(message, ['id', 'direction']),
          touches: 'contact',
        }
      : undefined,
});

describe('activity timelines of contacts and deals', () => {
  let runtime: PlatformRuntime;
  let app: NestFastifyApplication;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // role all: the outbox relay delivers events to the CRM's consumers in this process.
    ({ runtime, app, close } = await startTestApp([CrmModule], {
      role: 'all',
      migrations: [...identityMigrations, ...crmMigrations],
      events: [...crmManifest.publishes, SAID],
    }));
  });
  afterAll(() => close());

  const get = (url: string, t: TestTenant | undefined) => app.inject({ method: 'GET', url, headers: t?.key ?? {} });
  // Waits (bounded) until the consumer has written `count` entries: delivery is asynchronous.
  async function timelineOf(url: string, t: TestTenant, count: number): Promise<Entry[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const entries = (await get(`${url}?limit=100`, t)).json().entries as Entry[];
      if (entries.length >= count || Date.now() > deadline) return entries;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const emitAs = (t: TestTenant, source: string, type: string, payload: Record<string, unknown>) =>
    runtime.db.inTenant(t.ctx, (tx) => tx.emit([createEvent({ type, source, organizationId: t.ctx.organizationId, aggregateId: randomUUID(), payload })]));

  it('should gather CRM changes, notes, tasks and messages from another context through its declaration, newest first', async () => {
    const t = await createTestTenant(app);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Omar' });
    const deal = await app.get(DealService).create(t.ctx, { title: 'Fleet', contact_id: contact.id });
    await app.get(DealService).update(t.ctx, deal.id, { stage: 'qualified' });
    await app.get(ActivityRecordService).createNote(t.ctx, { body: 'Asked for a discount', deal_id: deal.id, contact_id: contact.id });
    await app.get(ActivityRecordService).createTask(t.ctx, { title: 'Send the quote', deal_id: deal.id, done: true });
    const message = {
      id: randomUUID(),
      conversation_id: randomUUID(),
      contact_id: contact.id,
      channel_account_id: randomUUID(),
      direction: 'inbound',
      status: 'received',
      content: 'Is the price final?',
      created_at: new Date().toISOString(),
    };
    // Shapes the timeline does not know are skipped without stalling the consumer: the message after them arrives.
    await emitAs(t, SAID.source, SAID.name, { message: 'not an object' });
    await emitAs(t, 'widgets', 'widget.unknown', { surprise: true });
    await emitAs(t, SAID.source, SAID.name, { message, actor_id: null });

    const forContact = await timelineOf(`/functions/v1/contacts/${contact.id}/timeline`, t, 5);
    expect(forContact.map((e) => e.type).sort()).toEqual(['contact.created', 'deal.created', 'deal.stage.changed', 'widget.said', 'note.created'].sort());
    expect(forContact[0]).toMatchObject({
      type: 'widget.said',
      source: 'widgets',
      summary: 'Said: Is the price final?',
      data: { id: message.id, direction: 'inbound' },
    });
    const times = forContact.map((e) => Date.parse(e.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const forDeal = await timelineOf(`/functions/v1/deals/${deal.id}/timeline`, t, 5);
    expect(forDeal.map((e) => e.type).sort()).toEqual(['deal.created', 'deal.stage.changed', 'note.created', 'task.completed', 'task.created']);
    expect(forDeal.find((e) => e.type === 'deal.stage.changed')?.summary).toBe('Stage changed from LEAD to QUALIFIED: Fleet');
  });

  it('should gather a company’s deals, notes and tasks on its timeline, paged newest first, and keep them through a merge', async () => {
    const t = await createTestTenant(app);
    const companies = app.get(CompanyService);
    const records = app.get(ActivityRecordService);
    const company = await companies.create(t.ctx, { name: 'Acme' });
    const other = await companies.create(t.ctx, { name: 'Acme Ltd' });
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Mona', company_id: company.id });
    const deal = await app.get(DealService).create(t.ctx, { title: 'Trucks', company_id: company.id, contact_id: contact.id });
    await app.get(DealService).update(t.ctx, deal.id, { stage: 'proposal' });
    await records.createNote(t.ctx, { body: 'Board meets in May', company_id: company.id });
    await records.createTask(t.ctx, { title: 'Call procurement', company_id: company.id });
    await records.createNote(t.ctx, { body: 'Only about the contact', contact_id: contact.id });
    await records.createNote(t.ctx, { body: 'About the other one', company_id: other.id });

    const url = `/functions/v1/companies/${company.id}/timeline`;
    const entries = await timelineOf(url, t, 4);
    expect(entries.map((e) => e.type).sort()).toEqual(['deal.created', 'deal.stage.changed', 'note.created', 'task.created']);
    expect(entries.every((e) => e.company_id === company.id)).toBe(true);
    expect(entries.find((e) => e.type === 'note.created')).toMatchObject({ summary: 'Note: Board meets in May', contact_id: null, deal_id: null });
    expect(entries.find((e) => e.type === 'deal.created')).toMatchObject({ deal_id: deal.id, contact_id: contact.id });
    const times = entries.map((e) => Date.parse(e.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const first = (await get(`${url}?limit=3`, t)).json();
    expect(first.entries).toHaveLength(3);
    const second = (await get(`${url}?limit=3&cursor=${first.next_cursor}`, t)).json();
    expect([...first.entries, ...second.entries].map((e: Entry) => e.id)).toEqual(entries.map((e) => e.id));
    expect(second.next_cursor).toBeNull();

    // Merging the other company into this one brings its entries along.
    await timelineOf(`/functions/v1/companies/${other.id}/timeline`, t, 1);
    await companies.merge(t.ctx, [company.id, other.id], company.id);
    expect((await timelineOf(url, t, 5)).map((e) => e.summary)).toContain('Note: About the other one');
    // The note itself moved with it rather than being deleted with the merged company.
    const notes = await runtime.db.inTenant(t.ctx, (tx) => tx.query<{ company_id: string }>(`SELECT company_id FROM notes WHERE body = 'About the other one'`));
    expect(notes).toEqual([{ company_id: company.id }]);
    expect((await get(`/functions/v1/companies/${other.id}/timeline`, t)).statusCode).toBe(404);
  });

  it('should answer 404 for another organization’s company timeline and clear 4xx for bad input', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const theirs = await app.get(CompanyService).create(b.ctx, { name: 'Theirs' });
    await app.get(ActivityRecordService).createNote(b.ctx, { body: 'secret', company_id: theirs.id });
    expect(await timelineOf(`/functions/v1/companies/${theirs.id}/timeline`, b, 1)).toHaveLength(1);
    expect((await get(`/functions/v1/companies/${theirs.id}/timeline`, a)).statusCode).toBe(404);
    expect((await get(`/functions/v1/companies/${randomUUID()}/timeline`, a)).statusCode).toBe(404);
    expect((await get('/functions/v1/companies/nope/timeline', a)).json()).toMatchObject({ code: 'company.invalid_id' });
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=garbage']) {
      expect({ query, status: (await get(`/functions/v1/companies/${theirs.id}/timeline?${query}`, b)).statusCode }).toEqual({ query, status: 400 });
    }
    expect((await get(`/functions/v1/companies/${theirs.id}/timeline`, undefined)).statusCode).toBe(401);
  });

  it('should count a message with the contact as activity on the contact’s deals', async () => {
    const t = await createTestTenant(app);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Idle' });
    const deal = await app.get(DealService).create(t.ctx, { title: 'Idle deal', contact_id: contact.id });
    await timelineOf(`/functions/v1/deals/${deal.id}/timeline`, t, 1);
    const lastActivity = async () =>
      (await runtime.db.asSystem((tx) => tx.query<{ at: Date }>('SELECT last_activity_at AS at FROM deals WHERE id = $1', [deal.id])))[0].at;
    await runtime.db.asSystem((tx) => tx.query(`UPDATE deals SET last_activity_at = now() - interval '30 days' WHERE id = $1`, [deal.id]));
    const stale = await lastActivity();
    await emitAs(t, SAID.source, SAID.name, {
      message: { id: randomUUID(), contact_id: contact.id, direction: 'outbound', status: 'sent', content: 'Hi' },
      actor_id: t.ctx.userId,
    });
    await timelineOf(`/functions/v1/contacts/${contact.id}/timeline`, t, 3);
    expect((await lastActivity()).getTime()).toBeGreaterThan(stale.getTime() + 29 * 86_400_000);
  });

  it('should keep a deal’s activity to the minute: activity within a minute after it does not rewrite the deal', async () => {
    const t = await createTestTenant(app);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Chatty' });
    const deal = await app.get(DealService).create(t.ctx, { title: 'Chatty deal', contact_id: contact.id });
    await timelineOf(`/functions/v1/deals/${deal.id}/timeline`, t, 1);
    const consumer = app
      .get(EventSubscriptions)
      .all()
      .find((s) => s.consumer === 'crm.timeline')!;
    const base = Date.now() - 3_600_000;
    await runtime.db.asSystem((tx) => tx.query(`UPDATE deals SET last_activity_at = $2 WHERE id = $1`, [deal.id, new Date(base).toISOString()]));
    const lastActivity = async () =>
      (await runtime.db.asSystem((tx) => tx.query<{ at: Date }>('SELECT last_activity_at AS at FROM deals WHERE id = $1', [deal.id])))[0].at.getTime();
    const received = (secondsAfterBase: number) => ({
      ...SAID.create({
        organizationId: t.ctx.organizationId,
        aggregateId: randomUUID(),
        payload: { message: { id: randomUUID(), contact_id: contact.id, content: `at +${secondsAfterBase}s` }, actor_id: null },
      }),
      occurredAt: new Date(base + secondsAfterBase * 1000).toISOString(),
    });
    // One at a time and in a batch, a minute after the stored time at most: the deal stays as it was.
    await consumer.handle(received(30));
    await consumer.handleBatch!([received(45), received(60)]);
    expect(await lastActivity()).toBe(base);
    // More than a minute after it: the deal takes that time, one at a time and in a batch.
    await consumer.handle(received(61));
    expect(await lastActivity()).toBe(base + 61_000);
    await consumer.handleBatch!([received(100), received(200), received(150)]);
    expect(await lastActivity()).toBe(base + 200_000);
    // Every message is on the timeline all the same.
    expect((await timelineOf(`/functions/v1/contacts/${contact.id}/timeline`, t, 9)).filter((e) => e.type === 'widget.said')).toHaveLength(7);
  });

  it('should write one entry for an event delivered twice', async () => {
    const t = await createTestTenant(app);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Twice' });
    await timelineOf(`/functions/v1/contacts/${contact.id}/timeline`, t, 1);
    const consumer = app
      .get(EventSubscriptions)
      .all()
      .find((s) => s.consumer === 'crm.timeline')!;
    const event = SAID.create({
      organizationId: t.ctx.organizationId,
      aggregateId: randomUUID(),
      payload: { message: { id: randomUUID(), contact_id: contact.id, content: 'once' }, actor_id: null },
    });
    await consumer.handle(event);
    await consumer.handle(event);
    const entries = await timelineOf(`/functions/v1/contacts/${contact.id}/timeline`, t, 2);
    expect(entries.map((e) => e.type)).toEqual(['widget.said', 'contact.created']);
  });

  it('should record a batch of events in one go with the same entries and deal activity as one by one', async () => {
    const t = await createTestTenant(app);
    const [busy, other] = [
      await app.get(ContactService).create(t.ctx, { first_name: 'Busy' }),
      await app.get(ContactService).create(t.ctx, { first_name: 'Other' }),
    ];
    const deal = await app.get(DealService).create(t.ctx, { title: 'Busy deal', contact_id: busy.id });
    await timelineOf(`/functions/v1/deals/${deal.id}/timeline`, t, 1);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE deals SET last_activity_at = now() - interval '30 days' WHERE id = $1`, [deal.id]));
    const consumer = app
      .get(EventSubscriptions)
      .all()
      .find((s) => s.consumer === 'crm.timeline')!;
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const message = (contactId: string, content: string, minutesAgo: number) => ({
      ...SAID.create({
        organizationId: t.ctx.organizationId,
        aggregateId: randomUUID(),
        payload: { message: { id: randomUUID(), contact_id: contactId, content }, actor_id: null },
      }),
      occurredAt: at(minutesAgo),
    });
    const [first, latest, older, forOther, forNobody] = [
      message(busy.id, 'first', 20),
      message(busy.id, 'latest', 5),
      message(busy.id, 'older', 10),
      message(other.id, 'hi', 1),
      message(randomUUID(), 'lost', 1),
    ];
    const unknownShape = createEvent({
      type: 'widget.unknown',
      source: 'widgets',
      organizationId: t.ctx.organizationId,
      aggregateId: randomUUID(),
      payload: { surprise: true },
    });
    await consumer.handleBatch!([first, latest, unknownShape, older, latest, forOther, forNobody]);
    const entries = await timelineOf(`/functions/v1/contacts/${busy.id}/timeline`, t, 5);
    expect(entries.map((e) => e.summary)).toEqual(['Deal created: Busy deal', 'Contact created', 'Said: latest', 'Said: older', 'Said: first']);
    expect((await timelineOf(`/functions/v1/contacts/${other.id}/timeline`, t, 2)).map((e) => e.summary)).toEqual(['Contact created', 'Said: hi']);
    // The deal's activity is the latest message's time, not the batch's last one.
    const [row] = await runtime.db.asSystem((tx) => tx.query<{ at: Date }>('SELECT last_activity_at AS at FROM deals WHERE id = $1', [deal.id]));
    expect(row.at.toISOString()).toBe(latest.occurredAt);
    // Delivered again: nothing new.
    await consumer.handleBatch!([first, latest]);
    expect(await timelineOf(`/functions/v1/contacts/${busy.id}/timeline`, t, 6)).toHaveLength(5);
  });

  it('should page with a cursor without repeats or gaps', async () => {
    const t = await createTestTenant(app);
    const contact = await app.get(ContactService).create(t.ctx, { first_name: 'Paged' });
    for (let i = 0; i < 6; i++) await app.get(ActivityRecordService).createNote(t.ctx, { body: `note ${i}`, contact_id: contact.id });
    const all = await timelineOf(`/functions/v1/contacts/${contact.id}/timeline`, t, 7);
    expect(all).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/functions/v1/contacts/${contact.id}/timeline?limit=3${cursor ? `&cursor=${cursor}` : ''}`, t);
      expect(res.statusCode).toBe(200);
      seen.push(...res.json().entries.map((e: Entry) => e.id));
      cursor = res.json().next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it('should answer 404 for another organization’s contact or deal and clear 4xx for bad input', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const theirs = await app.get(ContactService).create(b.ctx, { first_name: 'Theirs' });
    const theirDeal = await app.get(DealService).create(b.ctx, { title: 'Theirs', contact_id: theirs.id });
    expect((await get(`/functions/v1/contacts/${theirs.id}/timeline`, a)).statusCode).toBe(404);
    expect((await get(`/functions/v1/deals/${theirDeal.id}/timeline`, a)).statusCode).toBe(404);
    expect((await get(`/functions/v1/contacts/${randomUUID()}/timeline`, a)).statusCode).toBe(404);
    expect((await get('/functions/v1/contacts/nope/timeline', a)).statusCode).toBe(400);
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=x',
      'cursor=garbage',
      `cursor=${'x'.repeat(201)}`,
      `cursor=${Buffer.from('["2020-01-01","x"]').toString('base64url')}`,
    ]) {
      const res = await get(`/functions/v1/deals/${theirDeal.id}/timeline?${query}`, b);
      expect({ query, status: res.statusCode }).toEqual({ query, status: 400 });
    }
    expect((await get(`/functions/v1/contacts/${theirs.id}/timeline`, undefined)).statusCode).toBe(401);
  });
});
