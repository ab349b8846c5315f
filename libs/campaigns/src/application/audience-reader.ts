import { normalizePlan, Params, parseReadRequest, registryFor, whereSql } from '@engage/data-api';
import type { Tx } from '@engage/platform';
import { DomainError, isDomainError, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Audience } from '../domain/audience';
import { filterInvalid, filterText } from '../domain/segment-filter';
import { previewOf, SEGMENT_BY_ID, VISIBLE_CONTACTS } from '../infrastructure/campaigns.sql';
import type { SegmentRow } from '../domain/tables';
import type { Tables } from './data-api-tables';

// The role a worker reads an audience with (a scheduled broadcast starting): the organization's
// row-level security, every column a member may filter on.
const WORKER_ROLE = 'OWNER';

export interface AudiencePreview {
  count: number;
  reachable: number;
  skipped: { no_opt_in: number; no_phone: number; duplicate_phone: number };
  sample: { id: string; first_name: string; last_name: string | null; phone: string }[];
}

// An audience as SQL over crm_campaign_contacts (alias t), with its parameters: a segment's or an
// unsaved filter parsed by the data API's own parser against /rest/v1/contacts as the caller's role
// reads it (400 naming the bad part), or named contacts (404 for one the caller cannot see).
export class AudienceReader {
  constructor(private readonly tables: Tables) {}

  // A filter as the data API would run it on /rest/v1/contacts, or a 400 naming `path`.
  async filterWhere(tx: Tx, ctx: RequestContext, filter: string, params: Params, path: string): Promise<string> {
    const role = ctx.role === 'SYSTEM' ? WORKER_ROLE : ctx.role;
    const contacts = registryFor(this.tables(), role).tables.get('contacts');
    if (!contacts) throw new DomainError('unavailable', 'campaigns.contacts_unavailable', 'contacts are not served in this process');
    if (filter === '') return 'TRUE';
    try {
      const plan = parseReadRequest(contacts, { method: 'GET', table: 'contacts', query: filter, headers: {} });
      await normalizePlan(tx, { tables: new Map([['contacts', contacts]]) }, plan);
      return whereSql(plan.filters, params, 't');
    } catch (error) {
      if (!isDomainError(error)) throw error;
      throw filterInvalid(path, error.message);
    }
  }

  async where(tx: Tx, ctx: RequestContext, audience: Audience, params: Params): Promise<string> {
    if ('filter' in audience) return this.filterWhere(tx, ctx, filterText(audience.filter, 'audience.filter'), params, 'audience.filter');
    if ('segmentId' in audience) {
      const [segment] = await tx.query<SegmentRow>(SEGMENT_BY_ID, [audience.segmentId]);
      if (!segment) throw NotFound('segment', audience.segmentId);
      return this.filterWhere(tx, ctx, segment.filter, params, 'segment.filter');
    }
    const visible = new Set((await tx.query<{ id: string }>(VISIBLE_CONTACTS, [audience.contactIds])).map((r) => r.id));
    const missing = audience.contactIds.find((id) => !visible.has(id));
    if (missing) throw NotFound('contact', missing);
    return `t.id = ANY (${params.add(audience.contactIds)}::uuid[])`;
  }

  async preview(tx: Tx, ctx: RequestContext, audience: Audience): Promise<AudiencePreview> {
    const params = new Params();
    const where = await this.where(tx, ctx, audience, params);
    const [row] = await tx.query<{ counts: Record<string, number>; sample: (AudiencePreview['sample'][number] & { created_at: unknown })[] }>(
      previewOf(where),
      params.values,
    );
    const n = (status: string) => row.counts[status] ?? 0;
    const skipped = { no_opt_in: n('skipped_no_opt_in'), no_phone: n('skipped_invalid'), duplicate_phone: n('skipped_duplicate') };
    return {
      count: n('queued') + skipped.no_opt_in + skipped.no_phone + skipped.duplicate_phone,
      reachable: n('queued'),
      skipped,
      sample: row.sample.map(({ id, first_name, last_name, phone }) => ({ id, first_name, last_name, phone })),
    };
  }
}
