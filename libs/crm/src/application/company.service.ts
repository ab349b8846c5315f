import { DomainError, isUuid, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { CONTACT_UPDATED, contactEvent, DEAL_UPDATED, dealEvent } from './crm-events';
import { COMPANIES, type CompanyFields, type CompanyRow, type CompanyView, completeNewCompany, parseCompanyFields } from '../domain/company';
import { duplicateKeys, findDuplicateGroups, groupsFromSharedKeys, type CompanyKeys, type DuplicateGroup } from '../domain/company-duplicates';
import { isCountryCode } from '../domain/phone';
import {
  COMPANIES_FOR_MERGE,
  COMPANY_FOR_UPDATE,
  COMPANY_WRITE,
  DELETE_COMPANIES,
  DUPLICATE_KEYS,
  INSERT_COMPANIES,
  SAVE_DUPLICATE_KEYS,
  SHARED_DUPLICATE_KEYS,
  STALE_DUPLICATE_KEYS,
  INSERT_COMPANY,
  UPDATE_COMPANIES,
  LIST_COMPANIES,
  MOVE_CONTACTS,
  MOVE_DEALS,
  MOVE_NOTES,
  MOVE_TASKS,
  MOVE_TIMELINE,
  SEARCH_COMPANIES,
  UPDATE_COMPANY,
} from '../infrastructure/company.sql';
import { ORGANIZATION_COUNTRY, type ContactRow } from '../infrastructure/contact.sql';
import { toContactView } from './contact-view';
import { toDealView } from './deal.service';
import type { DealRow } from '../infrastructure/deal.sql';

export type { CompanyView } from '../domain/company';

export const COMPANY_PAGE_SIZE = 50;
// Duplicate detection in memory (the fallback) reads this many companies at most per call.
const DUPLICATE_SCAN_LIMIT = 50_000;

const TEXT_FILLS = [
  'country',
  'website',
  'industry',
  'address_street',
  'address_city',
  'address_state',
  'address_postal_code',
  'address_country',
  'company_size',
] as const;

export class CompanyService {
  constructor(private readonly db: Database) {}

  create(ctx: RequestContext, input: Record<string, unknown>): Promise<CompanyView> {
    return this.db.inTenant(ctx, (tx) => this.createIn(tx, ctx, input));
  }

  async createIn(tx: Tx, _ctx: RequestContext, input: Record<string, unknown>): Promise<CompanyView> {
    const [org] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY);
    const f = completeNewCompany(parseCompanyFields(input, isCountryCode(org?.country) ? org.country : undefined));
    const [row] = await tx.query<CompanyRow>(INSERT_COMPANY, COMPANY_WRITE.values(f));
    return iso(row);
  }

  // A PATCH: the fields present are validated as on create; the others keep their values.
  async updateIn(tx: Tx, _ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<CompanyView> {
    if (!isUuid(id)) throw new DomainError('validation', 'company.invalid_id', 'company id must be a UUID');
    const [org] = await tx.query<{ country: string | null }>(ORGANIZATION_COUNTRY);
    const changes = parseCompanyFields(input, isCountryCode(org?.country) ? org.country : undefined);
    const [current] = await tx.query<CompanyRow>(COMPANY_FOR_UPDATE, [id]);
    if (!current) throw NotFound('company', id);
    const [row] = await tx.query<CompanyRow>(UPDATE_COMPANY, [id, ...COMPANY_WRITE.values({ ...current, ...changes })]);
    return iso(row);
  }

  // Many companies at once (the CSV import): new ones inserted and matched ones updated with one
  // statement each. `merges` carry the full next state (the caller unions lists with the locked
  // row). Companies emit no events. Any database error fails the whole call.
  async importManyIn(tx: Tx, creates: CompanyFields[], merges: (CompanyFields & { id: string })[]): Promise<{ created: number; updated: number }> {
    const created = creates.length > 0 ? (await tx.query(INSERT_COMPANIES, [JSON.stringify(creates)])).length : 0;
    const updated = merges.length > 0 ? (await tx.query(UPDATE_COMPANIES, [JSON.stringify(merges)])).length : 0;
    return { created, updated };
  }

  // Deleting a company keeps its contacts: their company_id becomes null (§2).
  async removeIn(tx: Tx, _ctx: RequestContext, id: string): Promise<void> {
    if (!isUuid(id)) throw new DomainError('validation', 'company.invalid_id', 'company id must be a UUID');
    if ((await tx.execute('DELETE FROM companies WHERE id = $1', [id])) === 0) throw NotFound('company', id);
  }

  async list(ctx: RequestContext, page: number): Promise<{ companies: CompanyView[]; total: number; page: number; limit: number; total_pages: number }> {
    if (!Number.isInteger(page) || page < 1) throw new DomainError('validation', 'company.invalid_page', 'page must be a whole number of at least 1');
    const [result] = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ total: number; companies: CompanyView[] }>(LIST_COMPANIES, [COMPANY_PAGE_SIZE, (page - 1) * COMPANY_PAGE_SIZE]),
    );
    return { companies: result.companies, total: result.total, page, limit: COMPANY_PAGE_SIZE, total_pages: Math.ceil(result.total / COMPANY_PAGE_SIZE) };
  }

  async search(ctx: RequestContext, searchTerm: string, country?: string): Promise<(CompanyView & { score: number })[]> {
    const term = searchTerm.trim();
    if (term === '') return [];
    const escaped = term.replace(/[\\%_]/g, (c) => `\\${c}`);
    const params = [term, `%${escaped}%`, country?.trim() || null, `${escaped}%`];
    const rows = await this.db.inTenant(ctx, (tx) => tx.query<CompanyRow & { score: number }>(SEARCH_COMPANIES, params));
    return rows.map((row) => ({ ...iso(row), score: row.score }));
  }

  // Keys are computed by the domain code only for companies written since the last request (kept
  // in company_duplicate_keys); PostgreSQL returns the keys two or more companies share, and only
  // those are grouped here. Should saving the keys fail (a company deleted meanwhile), the
  // request falls back to grouping every company in memory.
  async findDuplicates(ctx: RequestContext): Promise<{ groups: (DuplicateGroup & { companies: { id: string; name: string }[] })[] }> {
    return this.db.inTenant(ctx, async (tx) => {
      const stale = await tx.query<CompanyKeys & { version: string }>(STALE_DUPLICATE_KEYS);
      if (stale.length > 0) {
        await tx.query('SAVEPOINT duplicate_keys');
        try {
          await tx.query(SAVE_DUPLICATE_KEYS, [JSON.stringify(stale.map((c) => ({ id: c.id, version: c.version, keys: duplicateKeys(c) })))]);
          await tx.query('RELEASE SAVEPOINT duplicate_keys');
        } catch {
          await tx.query('ROLLBACK TO SAVEPOINT duplicate_keys');
          const all = await tx.query<CompanyKeys>(DUPLICATE_KEYS, [DUPLICATE_SCAN_LIMIT]);
          return withNames(findDuplicateGroups(all), all);
        }
      }
      const shared = await tx.query<{ key: string; ids: string[]; names: string[] }>(SHARED_DUPLICATE_KEYS);
      return withNames(
        groupsFromSharedKeys(shared.map((row) => [row.key, row.ids])),
        shared.flatMap((row) => row.ids.map((id, i) => ({ id, name: row.names[i] }))),
      );
    });
  }

  // One transaction: contacts move to the primary, its empty fields are filled from the others in
  // age order, list fields are unioned, differing notes and descriptions are appended, the others go.
  async merge(
    ctx: RequestContext,
    companyIds: unknown,
    primaryCompanyId: unknown,
  ): Promise<{ company: CompanyView; merged_company_ids: string[]; moved_contact_ids: string[]; moved_deal_ids: string[] }> {
    if (!isUuid(primaryCompanyId)) throw new DomainError('validation', 'company.invalid_id', 'primaryCompanyId must be a UUID');
    if (!Array.isArray(companyIds) || companyIds.length === 0 || companyIds.length > 100 || !companyIds.every(isUuid)) {
      throw new DomainError('validation', 'company.invalid_id', 'companyIds must be an array of 1 to 100 UUIDs');
    }
    const others = [...new Set(companyIds.map((id) => id.toLowerCase()))].filter((id) => id !== primaryCompanyId.toLowerCase());
    if (others.length === 0) throw new DomainError('validation', 'company.nothing_to_merge', 'companyIds must name at least one company besides the primary');
    return this.db.inTenant(ctx, async (tx) => {
      const rows = (await tx.query<CompanyRow>(COMPANIES_FOR_MERGE, [[primaryCompanyId, ...others]])).map(iso);
      const primary = rows.find((row) => row.id === primaryCompanyId.toLowerCase());
      if (!primary) throw NotFound('company', primaryCompanyId);
      const missing = others.filter((id) => !rows.some((row) => row.id === id));
      if (missing.length > 0) throw NotFound('company', missing[0]);
      const merged = mergeFields(
        primary,
        rows.filter((row) => row !== primary),
      );
      const [company] = await tx.query<CompanyRow>(UPDATE_COMPANY, [primary.id, ...COMPANY_WRITE.values(merged)]);
      const moved = await tx.query<ContactRow>(MOVE_CONTACTS, [primary.id, others]);
      const movedDeals = await tx.query<DealRow>(MOVE_DEALS, [primary.id, others]);
      await tx.query(MOVE_TASKS, [primary.id, others]);
      await tx.query(MOVE_NOTES, [primary.id, others]);
      await tx.query(MOVE_TIMELINE, [primary.id, others]);
      await tx.query(DELETE_COMPANIES, [others]);
      await tx.emit([
        ...moved.map((row) => contactEvent(CONTACT_UPDATED, ctx, toContactView(row))),
        ...movedDeals.map((row) => dealEvent(DEAL_UPDATED, ctx, toDealView(row))),
      ]);
      return {
        company: iso(company),
        merged_company_ids: others,
        moved_contact_ids: moved.map((row) => row.id),
        moved_deal_ids: movedDeals.map((row) => row.id),
      };
    });
  }
}

function mergeFields(primary: CompanyView, others: CompanyView[]): CompanyFields {
  const merged: CompanyFields = { ...primary };
  for (const other of others) {
    for (const field of TEXT_FILLS) if (merged[field] === '' && other[field] !== '') merged[field] = other[field];
    if (merged.annual_revenue === null) merged.annual_revenue = other.annual_revenue;
    merged.phones = [...new Set([...merged.phones, ...other.phones])];
    merged.emails = [...new Set([...merged.emails, ...other.emails])];
    merged.tags = [...new Set([...merged.tags, ...other.tags])];
    for (const field of ['notes', 'description'] as const) {
      if (other[field] !== '' && !merged[field].includes(other[field]))
        merged[field] = merged[field] === '' ? other[field] : `${merged[field]}\n\n(from ${other.name}) ${other[field]}`;
    }
  }
  return merged;
}

const iso = (row: CompanyRow): CompanyView => toView(COMPANIES, row);

function withNames(groups: DuplicateGroup[], rows: { id: string; name: string }[]) {
  const names = new Map(rows.map((row) => [row.id, row.name]));
  return { groups: groups.map((group) => ({ ...group, companies: group.company_ids.map((id) => ({ id, name: names.get(id)! })) })) };
}
