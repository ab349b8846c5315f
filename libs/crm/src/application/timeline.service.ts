import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { activityTarget, type TimelineEntry } from '../domain/timeline';
import {
  COMPANY_EXISTS,
  COMPANY_TIMELINE,
  CONTACT_EXISTS,
  CONTACT_TIMELINE,
  DEAL_EXISTS,
  DEAL_TIMELINE,
  INSERT_TIMELINE_ENTRIES,
  INSERT_TIMELINE_ENTRY,
  TOUCH_DEALS,
  TOUCH_DEALS_MANY,
} from '../infrastructure/timeline.sql';

export type TimelineItem = Omit<TimelineEntry, 'event_id'> & { id: string };
export interface TimelinePage {
  entries: TimelineItem[];
  next_cursor: string | null;
}

export const TIMELINE_DEFAULT_LIMIT = 50;
export const TIMELINE_MAX_LIMIT = 100;

// The activity timeline of a contact, a deal or a company: written from events, read newest first with an
// opaque cursor (the last row's time and id), so pages stay stable while new entries arrive.
export class TimelineService {
  constructor(private readonly db: Database) {}

  async record(tx: Tx, entry: TimelineEntry): Promise<void> {
    await tx.query(INSERT_TIMELINE_ENTRY, [
      entry.event_id,
      entry.type,
      entry.source,
      entry.occurred_at,
      entry.actor_id,
      entry.contact_id,
      entry.deal_id,
      entry.summary,
      JSON.stringify(entry.data),
      entry.company_id,
    ]);
    const target = activityTarget(entry);
    if (target) await tx.query(TOUCH_DEALS, [target.deal_id, target.contact_id, entry.occurred_at]);
  }

  // The same for many entries in two statements (the consumer's batches).
  async recordMany(tx: Tx, entries: TimelineEntry[]): Promise<void> {
    if (entries.length === 1) return this.record(tx, entries[0]);
    if (entries.length === 0) return;
    const column = <K extends keyof TimelineEntry>(key: K) => entries.map((entry) => entry[key]);
    await tx.query(
      INSERT_TIMELINE_ENTRIES,
      [
        column('event_id'),
        column('type'),
        column('source'),
        column('occurred_at'),
        column('actor_id'),
        column('contact_id'),
        column('deal_id'),
        column('summary'),
        entries.map((entry) => JSON.stringify(entry.data)),
        column('company_id'),
      ],
      { prepare: true },
    );
    const touched = entries.flatMap((entry) => {
      const target = activityTarget(entry);
      return target ? [{ ...target, at: entry.occurred_at }] : [];
    });
    if (touched.length > 0)
      await tx.query(TOUCH_DEALS_MANY, [touched.map((t) => t.deal_id), touched.map((t) => t.contact_id), touched.map((t) => t.at)], { prepare: true });
  }

  async list(ctx: RequestContext, of: 'contact' | 'deal' | 'company', id: string, query: { limit?: number; cursor?: string }): Promise<TimelinePage> {
    if (!isUuid(id)) throw new DomainError('validation', `${of}.invalid_id`, `${of} id must be a UUID`);
    const limit = query.limit ?? TIMELINE_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > TIMELINE_MAX_LIMIT)
      throw new DomainError('validation', 'timeline.invalid_limit', `limit must be a whole number from 1 to ${TIMELINE_MAX_LIMIT}`);
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    return this.db.inTenant(ctx, async (tx) => {
      const [exists, timeline] =
        of === 'contact' ? [CONTACT_EXISTS, CONTACT_TIMELINE] : of === 'deal' ? [DEAL_EXISTS, DEAL_TIMELINE] : [COMPANY_EXISTS, COMPANY_TIMELINE];
      if ((await tx.query(exists, [id])).length === 0) throw NotFound(of, id);
      const rows = await tx.query<TimelineItem & { occurred_at: Date }>(timeline, [id, after?.at ?? null, after?.id ?? null, limit + 1]);
      const entries = rows.slice(0, limit).map((row) => ({ ...row, occurred_at: new Date(row.occurred_at).toISOString() }));
      const last = entries[entries.length - 1];
      return { entries, next_cursor: rows.length > limit ? encodeCursor(last.occurred_at, last.id) : null };
    });
  }
}

const encodeCursor = (at: string, id: string): string => Buffer.from(JSON.stringify([at, id])).toString('base64url');

function decodeCursor(cursor: string): { at: string; id: string } {
  const invalid = new DomainError('validation', 'timeline.invalid_cursor', 'cursor is not one this endpoint returned');
  if (cursor.length > 200) throw invalid;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at !== 'string' || Number.isNaN(Date.parse(at)) || !isUuid(id)) throw invalid;
    return { at, id };
  } catch {
    throw invalid;
  }
}
