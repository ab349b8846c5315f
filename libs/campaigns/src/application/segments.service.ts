import { assertAllowed } from '@engage/identity';
import { type Database, type Tx } from '@engage/platform';
import { DomainError, isUuid, NotFound, type RequestContext, toView, ValidationFailed } from '@engage/shared-kernel';
import { Params } from '@engage/data-api';
import { CAMPAIGNS_MANAGE } from '../campaigns.permissions';
import { filterText } from '../domain/segment-filter';
import { SEGMENTS, type SegmentRow } from '../domain/tables';
import { DELETE_SEGMENT, INSERT_SEGMENT, SEGMENT_BY_ID, SEGMENT_FOR_UPDATE, UPDATE_SEGMENT } from '../infrastructure/campaigns.sql';
import type { AudienceReader } from './audience-reader';

const MAX_NAME = 200;
const toSegmentView = (row: SegmentRow) => toView(SEGMENTS, row);

export function assertId(kind: string, id: string): void {
  if (!isUuid(id)) throw new DomainError('validation', `${kind}.invalid_id`, `${kind} id must be a UUID, got ${JSON.stringify(String(id).slice(0, 64))}`);
}

function parseName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw ValidationFailed('campaigns.invalid_name', 'name: is required (a non-empty text)', { path: 'name' });
  if (value.trim().length > MAX_NAME) throw ValidationFailed('campaigns.invalid_name', `name: must be at most ${MAX_NAME} characters`, { path: 'name' });
  return value.trim();
}

// /rest/v1/segments writes (bound as the table's writer) and the segment preview. A filter is
// parsed by the data API's parser against /rest/v1/contacts as the writer reads it when saved.
export class SegmentsService {
  constructor(
    private readonly db: Database,
    private readonly audiences: AudienceReader,
  ) {}

  async createIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    this.onlyKeys(input);
    const name = parseName(input.name);
    const filter = await this.checkedFilter(tx, ctx, input.filter ?? '');
    const [row] = await tx.query<SegmentRow>(INSERT_SEGMENT, [name, filter, ctx.userId]);
    return toSegmentView(row);
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('segment', id);
    this.onlyKeys(input);
    const [current] = await tx.query<SegmentRow>(SEGMENT_FOR_UPDATE, [id]);
    if (!current) throw NotFound('segment', id);
    const name = 'name' in input ? parseName(input.name) : current.name;
    const filter = 'filter' in input ? await this.checkedFilter(tx, ctx, input.filter) : current.filter;
    const [row] = await tx.query<SegmentRow>(UPDATE_SEGMENT, [id, name, filter]);
    return toSegmentView(row);
  }

  async removeIn(tx: Tx, ctx: RequestContext, id: string): Promise<void> {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('segment', id);
    if ((await tx.execute(DELETE_SEGMENT, [id])) === 0) throw NotFound('segment', id);
  }

  // GET /functions/v1/campaigns/segments/<id>/preview: who a broadcast to it would reach now.
  async preview(ctx: RequestContext, id: string) {
    assertId('segment', id);
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const [segment] = await tx.query<SegmentRow>(SEGMENT_BY_ID, [id]);
        if (!segment) throw NotFound('segment', id);
        return this.audiences.preview(tx, ctx, { segmentId: id });
      },
      { readOnly: true },
    );
  }

  private async checkedFilter(tx: Tx, ctx: RequestContext, value: unknown): Promise<string> {
    const filter = filterText(value, 'filter');
    await this.audiences.filterWhere(tx, ctx, filter, new Params(), 'filter');
    return filter;
  }

  private onlyKeys(input: Record<string, unknown>): void {
    const extra = Object.keys(input).find((key) => !['name', 'filter'].includes(key));
    if (extra !== undefined) {
      throw ValidationFailed('campaigns.unknown_field', `${extra.slice(0, 64)}: unknown field; a segment has name and filter`, { path: extra.slice(0, 64) });
    }
  }
}
