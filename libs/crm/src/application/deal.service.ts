import { completeFields, DomainError, isUuid, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import { type Database, type Tx, type ViolationMap } from '@engage/platform';
import { DEAL_ASSIGNED, DEAL_CREATED, DEAL_STAGE_CHANGED, DEAL_UPDATED, dealEvent } from './crm-events';
import { DEAL_FIELDS, DEALS, type DealFields, type DealView, parseDealFields } from '../domain/deal';
import { DEFAULT_STAGES, ownerChangeReason, probabilityAfterMove, resolveStage } from '../domain/stages';
import {
  BOARD,
  CLOSE_OWNER_PERIOD,
  DEAL_FOR_UPDATE,
  DEAL_UPDATE,
  DEAL_WRITE,
  type DealRow,
  DEFAULT_PIPELINE,
  HAD_OWNER,
  INSERT_DEAL,
  INSERT_DEFAULT_PIPELINE,
  INSERT_STAGE_HISTORY,
  INSERT_STAGES,
  OPEN_OWNER_PERIOD,
  PIPELINE_STAGES,
  type StageRow,
  UPDATE_DEAL,
} from '../infrastructure/deal.sql';

export type { DealView } from '../domain/deal';

// Deals on kanban pipelines: stage moves record history and set probability; owner changes record
// ownership periods; each change emits deal.* events in the same transaction.
export class DealService {
  constructor(private readonly db: Database) {}

  // Every organization has a default pipeline with the stages of §2; creating it twice is a no-op.
  async ensureDefaultPipeline(tx: Tx): Promise<string> {
    const [created] = await tx.query<{ id: string }>(INSERT_DEFAULT_PIPELINE);
    if (created) {
      await tx.query(INSERT_STAGES, [created.id, JSON.stringify(DEFAULT_STAGES.map((stage, position) => ({ ...stage, position })))]);
      return created.id;
    }
    const [existing] = await tx.query<{ id: string }>(DEFAULT_PIPELINE);
    return existing.id;
  }

  create(ctx: RequestContext, input: Record<string, unknown>): Promise<DealView> {
    return this.db.inTenant(ctx, (tx) => this.createIn(tx, ctx, input));
  }

  async createIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>): Promise<DealView> {
    const fields = parseDealFields(input);
    const complete = completeFields(DEALS, fields, (name) => new DomainError('validation', 'deal.invalid_field', `${name} is required`, { field: name }));
    const pipelineId = input.pipeline_id === undefined ? await this.ensureDefaultPipeline(tx) : assertUuid(input.pipeline_id, 'pipeline_id');
    const stages = await stagesOf(tx, pipelineId);
    const stage = input.stage === undefined ? stages[0] : resolveStage(input.stage, stages);
    const deal: DealFields = { ...complete, probability: fields.probability ?? probabilityAfterMove(stage, 0) };
    const values = DEAL_WRITE.values({ ...deal, pipeline_id: pipelineId, stage_id: stage.id, stage: stage.key });
    const [row] = await tx.query<DealRow>(INSERT_DEAL, values, { violations: DEAL_LINKS });
    await tx.query(INSERT_STAGE_HISTORY, [row.id, null, stage.key, ctx.userId]);
    const view = toDealView(row);
    const events = [dealEvent(DEAL_CREATED, ctx, view)];
    if (row.owner_id) {
      await tx.query(OPEN_OWNER_PERIOD, [row.id, row.owner_id, 'Initial assignment', ctx.userId]);
      events.push(dealEvent(DEAL_ASSIGNED, ctx, view, { previous_owner_id: null, reason: 'Initial assignment' }));
    }
    await tx.emit(events);
    return view;
  }

  async removeIn(tx: Tx, _ctx: RequestContext, id: string): Promise<void> {
    assertUuid(id, 'deal id');
    if ((await tx.execute('DELETE FROM deals WHERE id = $1', [id])) === 0) throw NotFound('deal', id);
  }

  // A PATCH of any fields, the stage included (§3: a stage change is recorded, probability follows).
  async update(ctx: RequestContext, id: string, input: Record<string, unknown>, options: { automatic?: boolean; position?: number } = {}): Promise<DealView> {
    assertUuid(id, 'deal id');
    const changes = parseDealFields(input);
    return this.db.inTenant(ctx, (tx) => this.updateIn(tx, ctx, id, input, changes, options));
  }

  // The update inside an open tenant transaction (the reassignment job holds one for a batch).
  async updateIn(
    tx: Tx,
    ctx: RequestContext,
    id: string,
    input: Record<string, unknown>,
    changes: Partial<DealFields>,
    options: { automatic?: boolean; position?: number } = {},
  ): Promise<DealView> {
    const [current] = await tx.query<DealRow>(DEAL_FOR_UPDATE, [id]);
    if (!current) throw NotFound('deal', id);
    const pipelineId = input.pipeline_id === undefined ? current.pipeline_id : assertUuid(input.pipeline_id, 'pipeline_id');
    const stages = await stagesOf(tx, pipelineId);
    const stage = input.stage !== undefined ? resolveStage(input.stage, stages) : (stages.find((s) => s.id === current.stage_id) ?? stages[0]);
    const stageChanged = stage.id !== current.stage_id;
    const next: DealFields = { ...pickDeal(current), ...changes };
    if (stageChanged && changes.probability === undefined) next.probability = probabilityAfterMove(stage, current.probability);
    const position = options.position ?? (stageChanged ? Number.MAX_SAFE_INTEGER : current.position);
    const at = position === Number.MAX_SAFE_INTEGER ? await endOfColumn(tx, stage.id) : position;
    const resolved = { pipeline_id: pipelineId, stage_id: stage.id, stage: stage.key, position: at };
    const [row] = await tx.query<DealRow>(UPDATE_DEAL, [id, ...DEAL_UPDATE.values({ ...next, ...resolved })], { violations: DEAL_LINKS });
    const view = toDealView(row);
    const events = [dealEvent(DEAL_UPDATED, ctx, view)];
    if (stageChanged) {
      await tx.query(INSERT_STAGE_HISTORY, [id, current.stage, stage.key, ctx.userId]);
      events.push(dealEvent(DEAL_STAGE_CHANGED, ctx, view, { from_stage: current.stage, to_stage: stage.key }));
    }
    const [history] = await tx.query<{ had: boolean }>(HAD_OWNER, [id]);
    const reason = ownerChangeReason(current.owner_id, row.owner_id, history.had, options.automatic ?? false);
    if (reason) {
      await tx.query(CLOSE_OWNER_PERIOD, [id]);
      await tx.query(OPEN_OWNER_PERIOD, [id, row.owner_id, reason, ctx.userId]);
      events.push(dealEvent(DEAL_ASSIGNED, ctx, view, { previous_owner_id: current.owner_id, reason }));
    }
    await tx.emit(events);
    return view;
  }

  // Kanban drag: to a stage, at an index within its column (0 = top).
  async move(ctx: RequestContext, id: string, stage: unknown, index: unknown): Promise<DealView> {
    assertUuid(id, 'deal id');
    if (index !== undefined && (!Number.isInteger(index) || (index as number) < 0))
      throw new DomainError('validation', 'deal.invalid_position', 'position must be a whole number of at least 0');
    const position = await this.db.inTenant(ctx, async (tx) => {
      const [deal] = await tx.query<DealRow>(DEAL_FOR_UPDATE, [id]);
      if (!deal) throw NotFound('deal', id);
      const target = resolveStage(stage, await stagesOf(tx, deal.pipeline_id));
      const column = await tx.query<{ position: number }>('SELECT position FROM deals WHERE stage_id = $1 AND id <> $2 ORDER BY position, id', [target.id, id]);
      return positionAt(
        column.map((c) => c.position),
        (index as number | undefined) ?? column.length,
      );
    });
    return this.update(ctx, id, { stage }, { position });
  }

  async board(ctx: RequestContext, pipelineId?: string, perColumn = BOARD_CARDS_DEFAULT): Promise<{ pipeline_id: string; stages: unknown[] }> {
    return this.db.inTenant(ctx, async (tx) => {
      const id = pipelineId === undefined ? await this.ensureDefaultPipeline(tx) : assertUuid(pipelineId, 'pipeline_id');
      const stages = await tx.query(BOARD, [id, perColumn]);
      if (stages.length === 0) throw NotFound('pipeline', id);
      return { pipeline_id: id, stages };
    });
  }
}

// Cards per column the board answers unless asked (GET /functions/v1/deals/board?limit=, at most 500).
export const BOARD_CARDS_DEFAULT = 100;

async function stagesOf(tx: Tx, pipelineId: string): Promise<StageRow[]> {
  const stages = await tx.query<StageRow>(PIPELINE_STAGES, [pipelineId]);
  if (stages.length === 0) throw NotFound('pipeline', pipelineId);
  return stages;
}

async function endOfColumn(tx: Tx, stageId: string): Promise<number> {
  const [row] = await tx.query<{ next: number }>('SELECT coalesce(max(position) + 1, 0) AS next FROM deals WHERE stage_id = $1', [stageId]);
  return row.next;
}

// A position between the neighbours at `index`, so a move rewrites one row.
export function positionAt(column: number[], index: number): number {
  const at = Math.min(index, column.length);
  if (column.length === 0) return 0;
  if (at === 0) return column[0] - 1;
  if (at === column.length) return column[column.length - 1] + 1;
  return (column[at - 1] + column[at]) / 2;
}

function assertUuid(value: unknown, field: string): string {
  if (!isUuid(value)) throw new DomainError('validation', 'deal.invalid_id', `${field} must be a UUID`);
  return value.toLowerCase();
}

// The composite keys name the link that is unknown or belongs to another organization.
const DEAL_LINKS: ViolationMap = {
  deals_contact_fkey: () => NotFound('contact'),
  deals_company_fkey: () => NotFound('company'),
  deals_owner_id_fkey: () => new DomainError('validation', 'deal.invalid_owner', 'owner_id is not a member of this organization'),
};

const pickDeal = (row: DealRow): DealFields => Object.fromEntries(DEAL_FIELDS.map((name) => [name, row[name]])) as DealFields;

export const toDealView = (row: DealRow): DealView => toView(DEALS, row);
