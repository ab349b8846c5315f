import type { MigrationInterface, QueryRunner } from 'typeorm';

// The board reads each column by stage: its totals (an index-only scan: the value and the
// organization row-level security checks are included) and its first cards in position order.
export class IndexDealsByStage1763800002008 implements MigrationInterface {
  name = 'IndexDealsByStage1763800002008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX deals_stage_position_idx ON deals (stage_id, position, id) INCLUDE (value, organization_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX deals_stage_position_idx`);
  }
}
