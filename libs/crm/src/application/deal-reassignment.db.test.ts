import { randomUUID } from 'node:crypto';
import { identityMigrations } from '@engage/identity';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { crmMigrations } from '../index';
import { DealReassignment } from './deal-reassignment';
import { DealService } from './deal.service';

describe('deal auto-reassignment', () => {
  let runtime: PlatformRuntime;
  let deals: DealService;
  let job: DealReassignment;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
    deals = new DealService(runtime.db);
    job = new DealReassignment(runtime.db, deals);
  });
  afterAll(() => runtime.close());

  async function member(ctx: RequestContext, online: boolean): Promise<string> {
    const id = randomUUID();
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`INSERT INTO users (id, email, password_hash, is_online) VALUES ($1, $2, 'x', $3)`, [id, `${id}@example.com`, online]);
      await tx.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'AGENT')`, [ctx.organizationId, id]);
    });
    return id;
  }
  const age = (dealIds: string[], days: number) =>
    runtime.db.asSystem((tx) => tx.query(`UPDATE deals SET last_activity_at = now() - make_interval(days => $2) WHERE id = ANY($1::uuid[])`, [dealIds, days]));
  const ownersOf = async (dealIds: string[]) =>
    (
      await runtime.db.asSystem((tx) => tx.query<{ id: string; owner_id: string }>('SELECT id, owner_id FROM deals WHERE id = ANY($1::uuid[])', [dealIds]))
    ).reduce<Record<string, string>>((all, row) => ({ ...all, [row.id]: row.owner_id }), {});

  it('should reassign idle deals round-robin among online members, skipping the owner, exactly once under concurrent runs', async () => {
    const ctx = await makeOrganization(runtime);
    const owner = await member(ctx, true);
    const [b, c] = [await member(ctx, true), await member(ctx, true)].sort();
    await member(ctx, false); // offline: never chosen
    const created = [];
    for (let i = 0; i < 4; i++) created.push(await deals.create(ctx, { title: `Idle ${i}`, owner_id: owner }));
    const fresh = await deals.create(ctx, { title: 'Active', owner_id: owner });
    const ids = created.map((d) => d.id);
    await age(ids, 8);

    const counts = await Promise.all([job.runFor(ctx.organizationId), job.runFor(ctx.organizationId), job.runFor(ctx.organizationId)]);
    expect(counts.reduce((a, n) => a + n, 0)).toBe(4);
    const owners = await ownersOf([...ids, fresh.id]);
    expect(ids.map((id) => owners[id]).sort()).toEqual([b, b, c, c].sort());
    expect(owners[fresh.id]).toBe(owner);
    const reasons = await runtime.db.asSystem((tx) =>
      tx.query<{ reason: string }>(`SELECT reason FROM deal_owner_history WHERE deal_id = ANY($1::uuid[]) AND ended_at IS NULL`, [ids]),
    );
    expect(reasons.map((r) => r.reason)).toEqual(['Auto-reassigned', 'Auto-reassigned', 'Auto-reassigned', 'Auto-reassigned']);

    // The rotation continues where it stopped: the next idle deal goes to the member after the last pick.
    const [rotation] = await runtime.db.asSystem((tx) =>
      tx.query<{ last_user_id: string }>('SELECT last_user_id FROM deal_rotation WHERE organization_id = $1', [ctx.organizationId]),
    );
    const another = await deals.create(ctx, { title: 'Later', owner_id: owner });
    await age([another.id], 9);
    await job.runFor(ctx.organizationId);
    expect((await ownersOf([another.id]))[another.id]).toBe(rotation.last_user_id === b ? c : b);
  });

  it("should respect the organization's inactivity threshold and leave deals alone when nobody else is online", async () => {
    const ctx = await makeOrganization(runtime);
    const owner = await member(ctx, true);
    await member(ctx, true);
    await runtime.db.asSystem((tx) => tx.query(`UPDATE organizations SET settings = '{"deal_inactivity_days": 30}' WHERE id = $1`, [ctx.organizationId]));
    const deal = await deals.create(ctx, { title: 'Slow burner', owner_id: owner });
    await age([deal.id], 10);
    expect(await job.runFor(ctx.organizationId)).toBe(0);
    await age([deal.id], 31);
    expect(await job.run()).toBeGreaterThanOrEqual(1);
    expect((await ownersOf([deal.id]))[deal.id]).not.toBe(owner);

    const lonely = await makeOrganization(runtime);
    const only = await member(lonely, true);
    const solo = await deals.create(lonely, { title: 'Solo', owner_id: only });
    await age([solo.id], 8);
    expect(await job.runFor(lonely.organizationId)).toBe(0);
    expect((await ownersOf([solo.id]))[solo.id]).toBe(only);
  });
});
