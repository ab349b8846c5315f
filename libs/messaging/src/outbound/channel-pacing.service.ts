import { DomainError, isUuid, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { assertAllowed } from '@engage/identity';
import { applyPacingPatch, effectivePacing, PACING_FIELDS, type PacingPolicy } from './pacing';
import { isChannelKind } from '../domain/statuses';
import { CHANNEL_ACCOUNTS } from '../infrastructure/exposed-tables';
import { manualPauseReason, OUTBOUND_QUEUE_MANAGE } from './outbound-queue';
import {
  PAUSE_ACCOUNT,
  QUEUE_ACCOUNT_BY_ID,
  QUEUE_ACCOUNT_FOR_UPDATE,
  type QueueAccountRecord,
  RESUME_ACCOUNT,
  SET_ACTIVE,
  SET_PACING,
} from './outbound-queue.sql';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// A channel account as GET/PATCH .../channel-accounts/<id> shows it: its served columns, `pacing`
// the policy in force (the kind's defaults with the stored overrides), `pacing_overrides` what was
// set, and whether the queue is paused (paused_at, paused_reason: 'manual...', or the automatic
// pause's reason).
export function channelQueueView(row: QueueAccountRecord) {
  const overrides = isRecord(row.pacing) ? row.pacing : {};
  const pacing: PacingPolicy | Record<string, unknown> = isChannelKind(row.kind) ? effectivePacing(row.kind, overrides) : overrides;
  return { ...toView(CHANNEL_ACCOUNTS, row), pacing, pacing_overrides: overrides, paused: row.paused_at !== null };
}

export type ChannelQueueView = ReturnType<typeof channelQueueView>;

export interface ChannelAccountChange {
  is_active?: unknown;
  // Absent: unchanged; null: back to the kind's defaults; an object: the fields given change.
  pacing?: unknown;
}

// The pacing and the pause of a channel account's queue. Owners, admins and the organization's API
// key change them (as the rest of a channel account); any member reads them.
export class ChannelPacingService {
  constructor(
    private readonly db: Database,
    // Wakes this process's queue worker (a resumed account may send at once).
    private readonly wake: () => void = () => undefined,
  ) {}

  async get(ctx: RequestContext, id: string): Promise<ChannelQueueView> {
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<QueueAccountRecord>(QUEUE_ACCOUNT_BY_ID, [id]));
    if (!row) throw NotFound('channel_account', id);
    return channelQueueView(row);
  }

  // PATCH {is_active?, pacing?}: each pacing field checked (a 400 naming it, e.g. pacing.gap_seconds)
  // against the account's kind; stored as overrides merged over those already set.
  async change(ctx: RequestContext, id: string, change: ChannelAccountChange): Promise<ChannelQueueView> {
    assertMayManage(ctx);
    if (change.is_active === undefined && change.pacing === undefined) {
      throw new DomainError('validation', 'validation_failed', 'Give is_active or pacing to change', { field: 'pacing' });
    }
    if (change.is_active !== undefined && typeof change.is_active !== 'boolean') {
      throw new DomainError('validation', 'validation_failed', 'is_active must be true or false', { field: 'is_active' });
    }
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const row = await this.db.inTenant(ctx, async (tx) => {
      const [current] = await tx.query<QueueAccountRecord>(QUEUE_ACCOUNT_FOR_UPDATE, [id]);
      if (!current) throw NotFound('channel_account', id);
      let updated = current;
      if (change.pacing !== undefined) {
        const overrides = pacingOverrides(current, change.pacing);
        [updated] = await tx.query<QueueAccountRecord>(SET_PACING, [id, JSON.stringify(overrides), change.pacing === null]);
      }
      if (typeof change.is_active === 'boolean') [updated] = await tx.query<QueueAccountRecord>(SET_ACTIVE, [id, change.is_active]);
      return updated;
    });
    this.wake();
    return channelQueueView(row);
  }

  // Idempotent: pausing a paused account keeps when it was paused and takes the latest reason.
  async pause(ctx: RequestContext, id: string, body: unknown): Promise<ChannelQueueView> {
    assertMayManage(ctx);
    const reason = manualPauseReason(body);
    return this.update(ctx, id, PAUSE_ACCOUNT, [reason]);
  }

  // Idempotent: the pause, the run of provider failures and the queue's sleep are cleared.
  async resume(ctx: RequestContext, id: string): Promise<ChannelQueueView> {
    assertMayManage(ctx);
    const view = await this.update(ctx, id, RESUME_ACCOUNT, []);
    this.wake();
    return view;
  }

  private async update(ctx: RequestContext, id: string, sql: string, params: unknown[]): Promise<ChannelQueueView> {
    if (!isUuid(id)) throw NotFound('channel_account', id);
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<QueueAccountRecord>(sql, [id, ...params]));
    if (!row) throw NotFound('channel_account', id);
    return channelQueueView(row);
  }
}

const assertMayManage = (ctx: RequestContext) => {
  if (ctx.role !== 'API_KEY' && ctx.role !== 'SYSTEM') assertAllowed(ctx.role, OUTBOUND_QUEUE_MANAGE);
};

// The overrides a pacing patch stores: each given field as its check returns it (null: none, all
// back to the kind's defaults).
function pacingOverrides(account: QueueAccountRecord, patch: unknown): Record<string, unknown> {
  if (patch === null) return {};
  if (!isChannelKind(account.kind)) {
    throw new DomainError('unprocessable', 'channel.no_pacing', `A ${account.kind} channel account has no pacing`, { field: 'pacing' });
  }
  const next = applyPacingPatch(effectivePacing(account.kind, account.pacing), patch);
  const given = Object.keys(patch as object) as (typeof PACING_FIELDS)[number][];
  return Object.fromEntries(given.map((field) => [field, next[field]]));
}
