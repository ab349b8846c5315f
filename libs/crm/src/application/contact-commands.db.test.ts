import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestApp } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { crmMigrations, CrmModule } from '../index';
import { AddNote, ChangeContactTags, SetContactField } from './contact-commands';
import { ContactService } from './contact.service';

describe('the CRM’s commands on the command bus', () => {
  let app: NestFastifyApplication;
  let runtime: PlatformRuntime;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, runtime, close } = await startTestApp([CrmModule], { role: 'api', migrations: [...identityMigrations, ...crmMigrations] }));
  });
  afterAll(() => close());

  const cause = { rule_id: '5f0e7a52-3b8e-4a39-9d3c-0c5f3a1e9b01', run_id: '0b6a4a35-8f4e-4f5e-8e31-8a4d1f3e2c02', depth: 1 };
  const system = (ctx: RequestContext): RequestContext => ({ ...ctx, userId: null, role: 'SYSTEM' });
  const eventsOf = (ctx: RequestContext) =>
    runtime.db.asSystem((tx) =>
      tx.query<{ type: string; cause: unknown }>('SELECT type, cause FROM outbox WHERE organization_id = $1 ORDER BY seq', [ctx.organizationId]),
    );

  it('should add and remove tags, set a column and a custom field, and add a note, each event carrying the cause given', async () => {
    const ctx = await makeOrganization(runtime);
    const contact = await app.get(ContactService).create(ctx, { first_name: 'Ada', tags: ['Cold', 'vip'], custom_fields: { plan: 'silver' } });
    const bus = app.get(CommandBus);

    const tagged = await bus.execute(new ChangeContactTags(system(ctx), contact.id, ['lead', 'VIP'], ['cold'], cause));
    expect(tagged).toMatchObject({ changed: true, contact: { tags: ['vip', 'lead'] } });
    expect((await bus.execute(new SetContactField(system(ctx), contact.id, 'custom_fields.plan', 'gold', cause))).contact.custom_fields).toEqual({
      plan: 'gold',
    });
    expect((await bus.execute(new SetContactField(system(ctx), contact.id, 'source', 'rule', cause))).contact.source).toBe('rule');
    expect((await bus.execute(new SetContactField(system(ctx), contact.id, 'custom_fields.plan', null, cause))).contact.custom_fields).toEqual({});
    const note = await bus.execute(new AddNote(system(ctx), { contact_id: contact.id }, 'Called back', cause));
    expect(note).toMatchObject({ body: 'Called back', contact_id: contact.id, author_id: null });

    const events = (await eventsOf(ctx)).slice(1); // after the contact.created of the set-up
    expect(events.map((event) => event.type)).toEqual(['contact.updated', 'contact.updated', 'contact.updated', 'contact.updated', 'note.created']);
    for (const event of events) expect(event.cause).toEqual(cause);
  });

  it('should write nothing and emit nothing when a command changes nothing', async () => {
    const ctx = await makeOrganization(runtime);
    const contact = await app.get(ContactService).create(ctx, { first_name: 'Grace', tags: ['vip'], source: 'web' });
    const bus = app.get(CommandBus);
    expect((await bus.execute(new ChangeContactTags(system(ctx), contact.id, ['VIP'], ['absent'], cause))).changed).toBe(false);
    expect((await bus.execute(new SetContactField(system(ctx), contact.id, 'source', 'web', cause))).changed).toBe(false);
    expect((await bus.execute(new SetContactField(system(ctx), contact.id, 'custom_fields.none', null, cause))).changed).toBe(false);
    expect((await eventsOf(ctx)).map((event) => event.type)).toEqual(['contact.created']);
  });

  it('should not find a contact of another organization', async () => {
    const [mine, theirs] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    const contact = await app.get(ContactService).create(theirs, { first_name: 'Other' });
    await expect(app.get(CommandBus).execute(new ChangeContactTags(system(mine), contact.id, ['x'], []))).rejects.toMatchObject({ code: 'contact.not_found' });
  });
});
