import { Injectable } from '@nestjs/common';
import { Database, defineJob, defineSchedule, type JobHandler } from '@engage/platform';
import { onlineMemberIds } from '@engage/identity';
import { nextInRotation } from '../domain/round-robin';
import { DealService } from './deal.service';

export const DEFAULT_INACTIVITY_DAYS = 7;
const BATCH = 200;

// system: organizations with owned deals idle past their threshold (setting deal_inactivity_days).
const ORGANIZATIONS_WITH_STALE_DEALS = `
  SELECT DISTINCT d.organization_id FROM deals d JOIN organizations o ON o.id = d.organization_id
  WHERE d.owner_id IS NOT NULL
    AND d.last_activity_at < now() - make_interval(days => coalesce((o.settings->>'deal_inactivity_days')::int, $1))`;

const STALE_DEALS = `
  SELECT d.id, d.owner_id FROM deals d JOIN organizations o ON o.id = d.organization_id
  WHERE d.owner_id IS NOT NULL
    AND d.last_activity_at < now() - make_interval(days => coalesce((o.settings->>'deal_inactivity_days')::int, $1))
  ORDER BY d.last_activity_at, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED`;

// Reassigns deals without activity round-robin among online members, skipping the current owner.
// One transaction per organization holds its rotation row locked, so replicas never double-assign.
// Scheduled every 10 minutes (crmSchedules).
@Injectable()
export class DealReassignment implements JobHandler {
  constructor(
    private readonly db: Database,
    private readonly deals: DealService,
  ) {}

  async handle(): Promise<void> {
    await this.run();
  }

  async run(): Promise<number> {
    const organizations = await this.db.systemQuery<{ organization_id: string }>(ORGANIZATIONS_WITH_STALE_DEALS, [DEFAULT_INACTIVITY_DAYS]);
    let reassigned = 0;
    for (const { organization_id: organizationId } of organizations) {
      reassigned += await this.runFor(organizationId);
    }
    return reassigned;
  }

  async runFor(organizationId: string): Promise<number> {
    const ctx = { organizationId, userId: null, role: 'SYSTEM' as const, requestId: 'deal-reassignment' };
    return this.db.inTenant(ctx, async (tx) => {
      await tx.query(`INSERT INTO deal_rotation (organization_id) VALUES ($1) ON CONFLICT DO NOTHING`, [organizationId]);
      const [rotation] = await tx.query<{ last_user_id: string | null }>(`SELECT last_user_id FROM deal_rotation WHERE organization_id = $1 FOR UPDATE`, [
        organizationId,
      ]);
      const online = await onlineMemberIds(tx);
      let last = rotation.last_user_id;
      let count = 0;
      for (const deal of await tx.query<{ id: string; owner_id: string }>(STALE_DEALS, [DEFAULT_INACTIVITY_DAYS, BATCH])) {
        const next = nextInRotation(online, last, deal.owner_id);
        if (!next) continue;
        await this.deals.updateIn(tx, ctx, deal.id, { owner_id: next }, { owner_id: next }, { automatic: true });
        last = next;
        count += 1;
      }
      await tx.query(`UPDATE deal_rotation SET last_user_id = $2, updated_at = now() WHERE organization_id = $1`, [organizationId, last]);
      return count;
    });
  }
}

export const crmSchedules = [defineSchedule({ job: defineJob({ name: 'crm.deal-reassignment', handler: DealReassignment }), everyMs: 600_000 })];
