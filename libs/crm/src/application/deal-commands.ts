import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Database, type Tx } from '@engage/platform';
import { type EventCause, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { ActivityRecordService, type TaskView } from './activity-records.service';
import { DealService, type DealView, toDealView } from './deal.service';
import { parseDealFields } from '../domain/deal';
import { resolveStage } from '../domain/stages';
import { DEAL_FOR_UPDATE, type DealRow, PIPELINE_STAGES, type StageRow } from '../infrastructure/deal.sql';

// Commands other contexts send to change deals and create tasks (automation's actions), on the
// command bus, through the CRM's own services: a stage change sets the default probability, records
// the stage history and emits deal.stage.changed; an owner change records the ownership period and
// emits deal.assigned; each event carries the cause given. A change that changes nothing writes
// nothing and emits nothing.

export interface DealChange {
  deal: DealView;
  changed: boolean;
}

// `stage`: a stage of the deal's pipeline (its key or name, as the API takes it).
export class SetDealStage extends Command<DealChange> {
  constructor(
    readonly ctx: RequestContext,
    readonly dealId: string,
    readonly stage: string,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

// `ownerId`: a member of the organization.
export class AssignDealOwner extends Command<DealChange> {
  constructor(
    readonly ctx: RequestContext,
    readonly dealId: string,
    readonly ownerId: string,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

// A task linked to a contact and/or a deal (at least one), due at `dueAt` (ISO 8601) or never.
export class CreateTask extends Command<TaskView> {
  constructor(
    readonly ctx: RequestContext,
    readonly on: { contact_id?: string; deal_id?: string },
    readonly title: string,
    readonly dueAt: string | null,
    readonly assigneeId?: string | null,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

@CommandHandler(SetDealStage)
export class SetDealStageHandler implements ICommandHandler<SetDealStage, DealChange> {
  constructor(
    private readonly db: Database,
    private readonly deals: DealService,
  ) {}

  execute({ ctx, dealId, stage, cause }: SetDealStage): Promise<DealChange> {
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const current = await lockDeal(tx, dealId);
        const target = resolveStage(stage, await tx.query<StageRow>(PIPELINE_STAGES, [current.pipeline_id]));
        if (target.id === current.stage_id) return { deal: toDealView(current), changed: false };
        return { deal: await this.deals.updateIn(tx, ctx, dealId, { stage: target.key }, {}), changed: true };
      },
      { cause },
    );
  }
}

@CommandHandler(AssignDealOwner)
export class AssignDealOwnerHandler implements ICommandHandler<AssignDealOwner, DealChange> {
  constructor(
    private readonly db: Database,
    private readonly deals: DealService,
  ) {}

  execute({ ctx, dealId, ownerId, cause }: AssignDealOwner): Promise<DealChange> {
    const changes = parseDealFields({ owner_id: ownerId });
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const current = await lockDeal(tx, dealId);
        if (current.owner_id === changes.owner_id) return { deal: toDealView(current), changed: false };
        return { deal: await this.deals.updateIn(tx, ctx, dealId, { owner_id: changes.owner_id }, changes), changed: true };
      },
      { cause },
    );
  }
}

@CommandHandler(CreateTask)
export class CreateTaskHandler implements ICommandHandler<CreateTask, TaskView> {
  constructor(
    private readonly db: Database,
    private readonly activity: ActivityRecordService,
  ) {}

  execute({ ctx, on, title, dueAt, assigneeId, cause }: CreateTask): Promise<TaskView> {
    const input = { ...on, title, due_at: dueAt, ...(assigneeId ? { assignee_id: assigneeId } : {}) };
    return this.db.inTenant(ctx, (tx) => this.activity.createTaskIn(tx, ctx, input), { cause });
  }
}

async function lockDeal(tx: Tx, id: string): Promise<DealRow> {
  if (!isUuid(id)) throw NotFound('deal', id);
  const [row] = await tx.query<DealRow>(DEAL_FOR_UPDATE, [id]);
  if (!row) throw NotFound('deal', id);
  return row;
}

export const DEAL_COMMAND_HANDLERS = [SetDealStageHandler, AssignDealOwnerHandler, CreateTaskHandler];
