import { randomUUID } from 'node:crypto';
import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { crmMigrations } from '../index';
import { ContactService } from './contact.service';
import { DealService, positionAt } from './deal.service';

describe('DealService', () => {
  let runtime: PlatformRuntime;
  let deals: DealService;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
    deals = new DealService(runtime.db);
  });
  afterAll(() => runtime.close());

  const member = async (ctx: RequestContext) => {
    const id = randomUUID();
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, 'x')`, [id, `${id}@example.com`]);
      await tx.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'AGENT')`, [ctx.organizationId, id]);
    });
    return id;
  };
  const orgWithUser = async () => {
    const ctx = await makeOrganization(runtime);
    return { ...ctx, userId: await member(ctx) };
  };
  const events = async (orgId: string) =>
    await runtime.db.asSystem((tx) =>
      tx.query<{ type: string; payload: Record<string, unknown> }>('SELECT type, payload FROM outbox WHERE organization_id = $1 ORDER BY seq', [orgId]),
    );
  const history = (table: string, dealId: string) => runtime.db.asSystem((tx) => tx.query(`SELECT * FROM ${table} WHERE deal_id = $1 ORDER BY id`, [dealId]));

  it('should give an organization one default pipeline with the six stages of §2, even when asked at once', async () => {
    const ctx = await makeOrganization(runtime);
    const boards = await Promise.all(Array.from({ length: 8 }, () => deals.board(ctx)));
    expect(new Set(boards.map((b) => b.pipeline_id)).size).toBe(1);
    expect((boards[0].stages as { name: string; default_probability: number }[]).map((s) => [s.name, s.default_probability])).toEqual([
      ['Deal', 10],
      ['Qualified', 25],
      ['Proposal', 50],
      ['Negotiation', 75],
      ['Closed Won', 100],
      ['Closed Lost', 0],
    ]);
  });

  it('should create a deal on a stage given in either case, record history and emit deal.created and deal.assigned', async () => {
    const ctx = await orgWithUser();
    const deal = await deals.create(ctx, { title: 'Big order', stage: 'lead', value: 1500, currency: 'egp', owner_id: ctx.userId, priority: 'high' });
    expect(deal).toMatchObject({ stage: 'LEAD', probability: 10, value: 1500, currency: 'EGP', owner_id: ctx.userId, priority: 'high' });
    expect((await events(ctx.organizationId)).map((e) => e.type)).toEqual(['deal.created', 'deal.assigned']);
    expect(await history('deal_stage_history', deal.id)).toMatchObject([{ from_stage: null, to_stage: 'LEAD' }]);
    expect(await history('deal_owner_history', deal.id)).toMatchObject([{ owner_id: ctx.userId, reason: 'Initial assignment', ended_at: null }]);
    const prospect = await deals.create(ctx, { title: 'Maybe', stage: 'PROSPECT' });
    expect(prospect.stage).toBe('LEAD');
  });

  it('should follow the stage on a move: history, probability 100 when won and 0 when lost, deal.stage.changed', async () => {
    const ctx = await orgWithUser();
    const deal = await deals.create(ctx, { title: 'Contract', stage: 'QUALIFIED' });
    const won = await deals.update(ctx, deal.id, { stage: 'closed_won' });
    expect(won).toMatchObject({ stage: 'CLOSED_WON', probability: 100 });
    const lost = await deals.update(ctx, deal.id, { stage: 'Closed Lost' });
    expect(lost.probability).toBe(0);
    const explicit = await deals.update(ctx, deal.id, { stage: 'NEGOTIATION', probability: 60 });
    expect(explicit.probability).toBe(60);
    const sameStage = await deals.update(ctx, deal.id, { value: 99.5 });
    expect(sameStage).toMatchObject({ stage: 'NEGOTIATION', value: 99.5, probability: 60 });
    expect((await history('deal_stage_history', deal.id)).map((h) => [h.from_stage, h.to_stage])).toEqual([
      [null, 'QUALIFIED'],
      ['QUALIFIED', 'CLOSED_WON'],
      ['CLOSED_WON', 'CLOSED_LOST'],
      ['CLOSED_LOST', 'NEGOTIATION'],
    ]);
    const changed = (await events(ctx.organizationId)).filter((e) => e.type === 'deal.stage.changed').map((e) => [e.payload.from_stage, e.payload.to_stage]);
    expect(changed).toEqual([
      ['QUALIFIED', 'CLOSED_WON'],
      ['CLOSED_WON', 'CLOSED_LOST'],
      ['CLOSED_LOST', 'NEGOTIATION'],
    ]);
    await expect(deals.update(ctx, deal.id, { stage: 'ON_HOLD' })).rejects.toThrow(/valid stages: LEAD, QUALIFIED/);
  });

  it('should keep ownership periods with durations and reasons', async () => {
    const ctx = await orgWithUser();
    const second = await member(ctx);
    const deal = await deals.create(ctx, { title: 'Owned', owner_id: ctx.userId });
    await runtime.db.asSystem((tx) => tx.query(`UPDATE deal_owner_history SET started_at = now() - interval '2 hours' WHERE deal_id = $1`, [deal.id]));
    await deals.update(ctx, deal.id, { owner_id: second });
    await deals.update(ctx, deal.id, { owner_id: null });
    await deals.update(ctx, deal.id, { owner_id: ctx.userId }, { automatic: true });
    const periods = await history('deal_owner_history', deal.id);
    expect(periods.map((p) => [p.owner_id, p.reason])).toEqual([
      [ctx.userId, 'Initial assignment'],
      [second, 'Reassigned'],
      [null, 'Unassigned'],
      [ctx.userId, 'Auto-reassigned'],
    ]);
    expect(Number(periods[0].duration_seconds)).toBeGreaterThanOrEqual(7200);
    expect(periods[3].ended_at).toBeNull();
    expect((await events(ctx.organizationId)).filter((e) => e.type === 'deal.assigned').map((e) => e.payload.reason)).toEqual([
      'Initial assignment',
      'Reassigned',
      'Unassigned',
      'Auto-reassigned',
    ]);
  });

  it('should place a dragged deal at the given index of the target column', async () => {
    const ctx = await orgWithUser();
    const a = await deals.create(ctx, { title: 'A' });
    await deals.create(ctx, { title: 'B' });
    const c = await deals.create(ctx, { title: 'C', stage: 'PROPOSAL' });
    await deals.move(ctx, c.id, 'lead', 1);
    const board = await deals.board(ctx);
    const lead = (board.stages as { key: string; deals: { title: string }[]; deal_count: number }[]).find((s) => s.key === 'LEAD')!;
    expect(lead.deals.map((d) => d.title)).toEqual(['A', 'C', 'B']);
    expect(lead.deal_count).toBe(3);
    await deals.move(ctx, a.id, 'LEAD', 5);
    const again = (await deals.board(ctx)).stages as { key: string; deals: { title: string }[] }[];
    expect(again.find((s) => s.key === 'LEAD')!.deals.map((d) => d.title)).toEqual(['C', 'B', 'A']);
    expect(positionAt([], 0)).toBe(0);
    expect(positionAt([1, 2], 1)).toBe(1.5);
    await expect(deals.move(ctx, a.id, 'LEAD', -1)).rejects.toMatchObject({ code: 'deal.invalid_position' });
  });

  it("should refuse another organization's deal, contact or owner, and bad fields", async () => {
    const a = await orgWithUser();
    const b = await orgWithUser();
    const bContact = await new ContactService(runtime.db).create(b, { first_name: 'Theirs' });
    const bDeal = await deals.create(b, { title: 'Theirs' });
    await expect(deals.update(a, bDeal.id, { title: 'Mine now' })).rejects.toMatchObject({ code: 'deal.not_found' });
    await expect(deals.create(a, { title: 'X', contact_id: bContact.id })).rejects.toMatchObject({ code: 'contact.not_found' });
    await expect(deals.create(a, { title: 'X', owner_id: b.userId })).rejects.toMatchObject({ code: 'deal.invalid_owner' });
    await expect(deals.create(a, { title: 'X', pipeline_id: bDeal.pipeline_id })).rejects.toMatchObject({ code: 'pipeline.not_found' });
    for (const bad of [
      { title: '' },
      { title: 'x', probability: 101 },
      { title: 'x', priority: 'whenever' },
      { title: 'x', value: -5 },
      { title: 'x', currency: 'euros' },
      { title: 'x', expected_close_date: '2026-13-45' },
      { title: 'x', owner: 'me' },
    ]) {
      await expect(deals.create(a, bad)).rejects.toMatchObject({ kind: 'validation' });
    }
  });
});
