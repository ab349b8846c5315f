import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { crmMigrations } from '../index';
import { KeepDealClosedAt1763800002030 } from '../infrastructure/migrations/0030-keep-deal-closed-at';
import { DealService } from './deal.service';

// closed_at (docs/crm.md, "Published read views"): when a deal last entered its current stage while
// that stage is won or lost, null while open; kept by the database whoever writes the deal.
describe('deals.closed_at', () => {
  let runtime: PlatformRuntime;
  let deals: DealService;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
    deals = new DealService(runtime.db);
  });
  afterAll(() => runtime.close());

  type Facts = { closed_at: Date | null; outcome: string; stage: string };
  const facts = async (ctx: RequestContext, id: string): Promise<Facts> => {
    const [row] = await runtime.db.inTenant(ctx, (tx) => tx.query<Facts>('SELECT closed_at, outcome, stage FROM crm_deal_facts WHERE id = $1', [id]));
    return row;
  };
  const stored = async (id: string): Promise<Date | null> =>
    (await runtime.db.asSystem((tx) => tx.query<{ closed_at: Date | null }>('SELECT closed_at FROM deals WHERE id = $1', [id])))[0].closed_at;
  const entered = async (id: string, stage: string): Promise<Date> =>
    (
      await runtime.db.asSystem((tx) =>
        tx.query<{ at: Date }>('SELECT max(changed_at) AS at FROM deal_stage_history WHERE deal_id = $1 AND to_stage = $2', [id, stage]),
      )
    )[0].at;

  it('should set closed_at when a deal enters a won or lost stage, move it between won and lost, and clear it when re-opened', async () => {
    const ctx = await makeOrganization(runtime);
    const deal = await deals.create(ctx, { title: 'Fleet', stage: 'LEAD', value: 100 });
    expect(await facts(ctx, deal.id)).toEqual({ closed_at: null, outcome: 'open', stage: 'LEAD' });

    await deals.update(ctx, deal.id, { stage: 'CLOSED_WON' });
    const won = await entered(deal.id, 'CLOSED_WON');
    expect(await facts(ctx, deal.id)).toEqual({ closed_at: won, outcome: 'won', stage: 'CLOSED_WON' });

    // An edit that keeps the stage keeps closed_at.
    await deals.update(ctx, deal.id, { value: 250 });
    expect((await facts(ctx, deal.id)).closed_at).toEqual(won);

    await deals.move(ctx, deal.id, 'CLOSED_LOST', 0);
    const lost = await entered(deal.id, 'CLOSED_LOST');
    expect(lost.getTime()).toBeGreaterThan(won.getTime());
    expect(await facts(ctx, deal.id)).toEqual({ closed_at: lost, outcome: 'lost', stage: 'CLOSED_LOST' });

    await deals.update(ctx, deal.id, { stage: 'NEGOTIATION' });
    expect(await facts(ctx, deal.id)).toEqual({ closed_at: null, outcome: 'open', stage: 'NEGOTIATION' });

    // Won again: the time it entered the stage this time, not the first.
    await deals.update(ctx, deal.id, { stage: 'CLOSED_WON' });
    const again = await entered(deal.id, 'CLOSED_WON');
    expect(again.getTime()).toBeGreaterThan(won.getTime());
    expect((await facts(ctx, deal.id)).closed_at).toEqual(again);
  });

  it('should take the creation time for a deal created closed, and a history row written afterwards', async () => {
    const ctx = await makeOrganization(runtime);
    const deal = await deals.create(ctx, { title: 'Signed', stage: 'WON' });
    const [{ created_at: created }] = await runtime.db.asSystem((tx) =>
      tx.query<{ created_at: Date }>('SELECT created_at FROM deals WHERE id = $1', [deal.id]),
    );
    expect((await facts(ctx, deal.id)).closed_at).toEqual(await entered(deal.id, 'CLOSED_WON'));
    // A row written straight into the table (an import, a fix by SQL) is kept the same way.
    await runtime.db.asSystem((tx) => tx.query(`DELETE FROM deal_stage_history WHERE deal_id = $1`, [deal.id]));
    await runtime.db.asSystem((tx) => tx.query(`UPDATE deals SET stage = 'CLOSED_WON', stage_id = stage_id WHERE id = $1`, [deal.id]));
    expect(await stored(deal.id)).toEqual(created);
    const at = new Date(created.getTime() + 86_400_000);
    await runtime.db.asSystem((tx) =>
      tx.query(`INSERT INTO deal_stage_history (organization_id, deal_id, from_stage, to_stage, changed_at) VALUES ($1, $2, 'LEAD', 'CLOSED_WON', $3)`, [
        ctx.organizationId,
        deal.id,
        at,
      ]),
    );
    expect(await stored(deal.id)).toEqual(at);
  });

  it('should backfill the existing deals when the migration runs', async () => {
    const ctx = await makeOrganization(runtime);
    const open = await deals.create(ctx, { title: 'Open', stage: 'LEAD' });
    const closed = await deals.create(ctx, { title: 'Closed', stage: 'LEAD' });
    await deals.update(ctx, closed.id, { stage: 'CLOSED_LOST' });
    const runner = runtime.dataSource.createQueryRunner();
    try {
      const migration = new KeepDealClosedAt1763800002030();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await stored(open.id)).toBeNull();
    expect(await stored(closed.id)).toEqual(await entered(closed.id, 'CLOSED_LOST'));
    expect(await facts(ctx, closed.id)).toMatchObject({ outcome: 'lost', closed_at: await entered(closed.id, 'CLOSED_LOST') });
  });

  it('should not serve closed_at on deals (the published view does)', async () => {
    const ctx = await makeOrganization(runtime);
    const deal = await deals.create(ctx, { title: 'Hidden', stage: 'WON' });
    expect(deal).not.toHaveProperty('closed_at');
  });
});
