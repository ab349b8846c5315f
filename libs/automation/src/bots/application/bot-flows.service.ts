import { Injectable } from '@nestjs/common';
import { assertAllowed } from '@engage/identity';
import { Database, type RecordWriter, type Tx } from '@engage/platform';
import { DomainError, isUuid, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import { AUTOMATION_BOTS_MANAGE } from '../../automation.permissions';
import { botInvalid } from '../domain/bot-error';
import { type BotFlowFields, parseBotFlow } from '../domain/flow';
import { graphProblems } from '../domain/graph';
import { BOT_FLOWS, type BotFlowRow } from '../domain/tables';
import { DELETE_FLOW, FLOW_FOR_UPDATE, INSERT_FLOW, INSERT_VERSION, KNOWN_CHANNEL_ACCOUNTS, MARK_PUBLISHED, UPDATE_FLOW } from '../infrastructure/bots.sql';

export function assertFlowId(id: string): void {
  if (!isUuid(id)) throw new DomainError('validation', 'bot_flow.invalid_id', `bot flow id must be a UUID, got ${JSON.stringify(String(id).slice(0, 64))}`);
}

const toFlowView = (row: BotFlowRow) => toView(BOT_FLOWS, row);
const fieldsOf = (row: BotFlowRow): BotFlowFields => row as unknown as BotFlowFields;

// Bot flows: validated whole on every write by OWNER and ADMIN (docs/automation.md, "Bot flows");
// publishing checks the graph and stores an immutable version.
@Injectable()
export class BotFlowsService {
  constructor(private readonly db: Database) {}

  async createIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>) {
    assertAllowed(ctx.role, AUTOMATION_BOTS_MANAGE);
    const fields = parseBotFlow(input);
    await this.assertChannelAccounts(tx, fields.channel_account_ids);
    const [row] = await tx.query<BotFlowRow>(INSERT_FLOW, [...this.values(fields), ctx.userId]);
    return toFlowView(row);
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>) {
    assertAllowed(ctx.role, AUTOMATION_BOTS_MANAGE);
    assertFlowId(id);
    const [current] = await tx.query<BotFlowRow>(FLOW_FOR_UPDATE, [id]);
    if (!current) throw NotFound('bot_flow', id);
    const fields = parseBotFlow(input, fieldsOf(current));
    await this.assertChannelAccounts(tx, fields.channel_account_ids);
    const [row] = await tx.query<BotFlowRow>(UPDATE_FLOW, [id, ...this.values(fields)]);
    return toFlowView(row);
  }

  async removeIn(tx: Tx, ctx: RequestContext, id: string): Promise<void> {
    assertAllowed(ctx.role, AUTOMATION_BOTS_MANAGE);
    assertFlowId(id);
    if ((await tx.execute(DELETE_FLOW, [id])) === 0) throw NotFound('bot_flow', id);
  }

  // POST /functions/v1/automation/bots/<id>/publish: the flow's graph checked, then stored as its
  // next version, which new sessions start on.
  async publish(ctx: RequestContext, id: string): Promise<{ bot_flow_id: string; version: number; published_at: string }> {
    assertAllowed(ctx.role, AUTOMATION_BOTS_MANAGE);
    assertFlowId(id);
    return this.db.inTenant(ctx, async (tx) => {
      const [row] = await tx.query<BotFlowRow>(FLOW_FOR_UPDATE, [id]);
      if (!row) throw NotFound('bot_flow', id);
      const fields = fieldsOf(row);
      const problems = graphProblems(fields.definition);
      if (problems.length > 0) {
        const words = problems.map((p) => `${p.node_id === null ? p.path : `node "${p.node_id}" (${p.path})`}: ${p.problem}`);
        throw new DomainError('validation', 'bot_flow.invalid_graph', `the flow cannot be published: ${words.join('; ')}`, {
          nodes: [...new Set(problems.flatMap((p) => (p.node_id === null ? [] : [p.node_id])))],
          problems,
        });
      }
      const now = new Date();
      const [version] = await tx.query<{ version: number; published_at: Date }>(INSERT_VERSION, [
        id,
        JSON.stringify(fields.definition),
        JSON.stringify(fields.settings),
        ctx.userId,
        now,
      ]);
      await tx.execute(MARK_PUBLISHED, [id, version.version, now]);
      return { bot_flow_id: id, version: version.version, published_at: new Date(version.published_at).toISOString() };
    });
  }

  // Every id must be a channel account of the caller's organization (messaging's published read).
  private async assertChannelAccounts(tx: Tx, ids: string[]): Promise<void> {
    const known = new Set((await tx.query<{ id: string }>(KNOWN_CHANNEL_ACCOUNTS, [ids])).map((row) => row.id));
    const missing = ids.findIndex((id) => !known.has(id));
    if (missing >= 0) throw botInvalid(`channel_account_ids[${missing}]`, 'is not a channel account of this organization');
  }

  private values(fields: BotFlowFields): unknown[] {
    const json = JSON.stringify;
    return [fields.name, fields.channel_account_ids, json(fields.trigger), json(fields.definition), fields.is_active, json(fields.settings)];
  }
}

// /rest/v1/bot_flows writes through the flow validator; bot_flow_versions and bot_sessions have no
// writer (read-only there).
@Injectable()
export class BotFlowsWriter implements RecordWriter {
  constructor(private readonly flows: BotFlowsService) {}
  create = (tx: Tx, ctx: RequestContext, body: Record<string, unknown>) => this.flows.createIn(tx, ctx, body);
  update = (tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>) => this.flows.updateIn(tx, ctx, id, body);
  remove = (tx: Tx, ctx: RequestContext, id: string) => this.flows.removeIn(tx, ctx, id);
}
