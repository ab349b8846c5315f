import { randomUUID } from 'node:crypto';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestApp } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { crmMigrations, CrmModule } from '../index';
import { ContactService } from './contact.service';
import { AssignDealOwner, CreateTask, SetDealStage } from './deal-commands';
import { DealService } from './deal.service';

describe('the CRM’s deal and task commands on the command bus', () => {
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
      tx.query<{ type: string; cause: unknown; payload: Record<string, unknown> }>(
        'SELECT type, cause, payload FROM outbox WHERE organization_id = $1 ORDER BY seq',
        [ctx.organizationId],
      ),
    );
  const history = (table: string, dealId: string) => runtime.db.asSystem((tx) => tx.query(`SELECT * FROM ${table} WHERE deal_id = $1 ORDER BY id`, [dealId]));
  const member = async (ctx: RequestContext) => {
    const id = randomUUID();
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [id, `${id}@example.com`]);
      await tx.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'AGENT')`, [ctx.organizationId, id]);
    });
    return id;
  };

  it('should move a deal to a stage as the API does: probability, stage history, deal.stage.changed with the cause', async () => {
    const ctx = await makeOrganization(runtime);
    const deal = await app.get(DealService).create(ctx, { title: 'Fleet', value: 100 });
    const bus = app.get(CommandBus);

    const moved = await bus.execute(new SetDealStage(system(ctx), deal.id, 'Proposal', cause));
    expect(moved).toMatchObject({ changed: true, deal: { stage: 'PROPOSAL', probability: 50 } });
    expect((await history('deal_stage_history', deal.id)).map((row) => [row.from_stage, row.to_stage, row.changed_by])).toEqual([
      [null, 'LEAD', null],
      ['LEAD', 'PROPOSAL', null],
    ]);
    const events = (await eventsOf(ctx)).slice(1); // after the deal.created of the set-up
    expect(events.map((event) => event.type)).toEqual(['deal.updated', 'deal.stage.changed']);
    expect(events[1].payload).toMatchObject({ from_stage: 'LEAD', to_stage: 'PROPOSAL' });
    for (const event of events) expect(event.cause).toEqual(cause);
  });

  it('should change a deal’s owner with its ownership period and deal.assigned carrying the cause', async () => {
    const ctx = await makeOrganization(runtime);
    const [first, second] = [await member(ctx), await member(ctx)];
    const deal = await app.get(DealService).create(ctx, { title: 'Owned', owner_id: first });
    const bus = app.get(CommandBus);

    expect(await bus.execute(new AssignDealOwner(system(ctx), deal.id, second, cause))).toMatchObject({ changed: true, deal: { owner_id: second } });
    expect((await history('deal_owner_history', deal.id)).map((row) => [row.owner_id, row.reason, row.ended_at === null])).toEqual([
      [first, 'Initial assignment', false],
      [second, 'Reassigned', true],
    ]);
    const events = (await eventsOf(ctx)).filter((event) => event.cause !== null);
    expect(events.map((event) => event.type)).toEqual(['deal.updated', 'deal.assigned']);
    expect(events[1].payload).toMatchObject({ previous_owner_id: first, reason: 'Reassigned' });
    for (const event of events) expect(event.cause).toEqual(cause);
    await expect(bus.execute(new AssignDealOwner(system(ctx), deal.id, randomUUID(), cause))).rejects.toMatchObject({ code: 'deal.invalid_owner' });
  });

  it('should create a task on a contact and a deal, due when asked, with task.created carrying the cause', async () => {
    const ctx = await makeOrganization(runtime);
    const assignee = await member(ctx);
    const contact = await app.get(ContactService).create(ctx, { first_name: 'Ada' });
    const deal = await app.get(DealService).create(ctx, { title: 'Fleet', contact_id: contact.id });
    const due = new Date(Date.now() + 60 * 60_000).toISOString();

    const task = await app.get(CommandBus).execute(new CreateTask(system(ctx), { contact_id: contact.id, deal_id: deal.id }, 'Call Ada', due, assignee, cause));
    expect(task).toMatchObject({
      title: 'Call Ada',
      contact_id: contact.id,
      deal_id: deal.id,
      assignee_id: assignee,
      due_at: due,
      done: false,
      created_by: null,
    });
    const [created] = (await eventsOf(ctx)).filter((event) => event.type === 'task.created');
    expect(created.cause).toEqual(cause);
  });

  it('should write nothing and emit nothing when a command changes nothing', async () => {
    const ctx = await makeOrganization(runtime);
    const owner = await member(ctx);
    const deal = await app.get(DealService).create(ctx, { title: 'Still', owner_id: owner, stage: 'QUALIFIED' });
    const bus = app.get(CommandBus);
    const before = await eventsOf(ctx);
    expect((await bus.execute(new SetDealStage(system(ctx), deal.id, 'qualified', cause))).changed).toBe(false);
    expect((await bus.execute(new AssignDealOwner(system(ctx), deal.id, owner.toUpperCase(), cause))).changed).toBe(false);
    expect(await eventsOf(ctx)).toEqual(before);
    expect(await history('deal_stage_history', deal.id)).toHaveLength(1);
    expect(await history('deal_owner_history', deal.id)).toHaveLength(1);
  });

  it('should refuse a stage that is not one of the deal’s pipeline, changing nothing', async () => {
    const ctx = await makeOrganization(runtime);
    const deal = await app.get(DealService).create(ctx, { title: 'Fleet' });
    const before = await eventsOf(ctx);
    await expect(app.get(CommandBus).execute(new SetDealStage(system(ctx), deal.id, 'Signed', cause))).rejects.toMatchObject({
      code: 'deal.invalid_stage',
      message: expect.stringContaining('unknown stage "Signed"; valid stages: LEAD, QUALIFIED'),
    });
    expect(await eventsOf(ctx)).toEqual(before);
  });

  it('should not find a deal of another organization, nor link a task to one', async () => {
    const [mine, theirs] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    const deal = await app.get(DealService).create(theirs, { title: 'Other' });
    const bus = app.get(CommandBus);
    await expect(bus.execute(new SetDealStage(system(mine), deal.id, 'PROPOSAL', cause))).rejects.toMatchObject({ code: 'deal.not_found' });
    await expect(bus.execute(new AssignDealOwner(system(mine), deal.id, randomUUID(), cause))).rejects.toMatchObject({ code: 'deal.not_found' });
    await expect(bus.execute(new CreateTask(system(mine), { deal_id: deal.id }, 'Call', null, null, cause))).rejects.toMatchObject({ code: 'deal.not_found' });
    expect(await eventsOf(mine)).toEqual([]);
  });
});
