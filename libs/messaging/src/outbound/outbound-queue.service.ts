import { NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import type { OrganizationSettings } from '@engage/identity';
import { capsAt, type DrainOptions, effectivePacing, estimateDrain, isValidTimeZone, type PacingPolicy } from './pacing';
import { isChannelKind } from '../domain/statuses';
import type { QueueItemsQuery } from './outbound-queue';
import {
  QUEUE_ACCOUNT_BY_ID,
  QUEUE_ACCOUNTS,
  QUEUE_DEPTHS,
  QUEUE_ITEMS,
  QUEUE_ITEMS_TOTAL,
  type QueueAccountRecord,
  type QueueItemRow,
  RECENT_SENDS,
} from './outbound-queue.sql';
import { type AccountPacingState, expectedTimes } from './queue-estimate';

const HOUR_MS = 3_600_000;
const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

export interface QueueAccountSummary {
  channel_account_id: string;
  kind: string;
  name: string;
  paused: boolean;
  paused_reason: string | null;
  depth: { total: number; by_origin: Record<string, number> };
  next_send_at: string | null;
  eta_last: string | null;
  sent_last_hour: number;
  sent_today: number;
  caps: { per_hour: number | null; per_day: number | null };
}

export interface QueueItemView {
  id: string;
  channel_account_id: string;
  conversation_id: string;
  contact_id: string;
  status: string;
  origin: string;
  origin_id: string | null;
  content: string;
  media: unknown;
  scheduled_for: string | null;
  created_at: string;
  position: number;
  expected_at: string | null;
}

// What the estimates of one account start from: its policy, its sends of the last 24 h, the share of
// its queued recipients who are cold, and whether anything goes at all (paused or switched off: no).
interface AccountEstimate {
  policy: PacingPolicy | null;
  state: AccountPacingState;
  options: DrainOptions;
  sending: boolean;
}

// The paced queue as an operator sees it: per account what waits, what went out, the caps in force
// and when the queue should be empty (estimateDrain: mid-point gaps and the caps, quiet hours in the
// organization's zone; per-recipient limits left out); and the queued messages in serving order.
export class OutboundQueueService {
  constructor(
    private readonly db: Database,
    private readonly settings: Pick<OrganizationSettings, 'plain'>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async summary(ctx: RequestContext): Promise<{ accounts: QueueAccountSummary[] }> {
    const now = this.clock();
    const zone = await this.zoneOf(ctx);
    const { accounts, depths, sends } = await this.db.inTenant(ctx, async (tx) => {
      const accounts = await tx.query<QueueAccountRecord>(QUEUE_ACCOUNTS);
      const depths = await tx.query<{ channel_account_id: string; origin: string; queued: number; cold: number }>(QUEUE_DEPTHS, [now]);
      const sends = await this.recentSends(
        tx,
        accounts.map((a) => a.id),
        now,
      );
      return { accounts, depths, sends };
    });
    return {
      accounts: accounts.map((account) => {
        const own = depths.filter((d) => d.channel_account_id === account.id);
        const total = own.reduce((sum, d) => sum + d.queued, 0);
        const cold = own.reduce((sum, d) => sum + d.cold, 0);
        const accountSends = sends.get(account.id) ?? [];
        const estimate = this.estimateFor(account, accountSends, total === 0 ? 1 : cold / total, zone, now);
        const estimates = estimate.sending && estimate.policy && total > 0;
        return {
          channel_account_id: account.id,
          kind: account.kind,
          name: account.name,
          paused: account.paused_at !== null,
          paused_reason: account.paused_reason,
          depth: { total, by_origin: Object.fromEntries(own.map((d) => [d.origin, d.queued])) },
          next_send_at: estimates ? iso(estimateDrain(estimate.policy!, estimate.state, 1, estimate.options)) : null,
          eta_last: estimates ? iso(estimateDrain(estimate.policy!, estimate.state, total, estimate.options)) : null,
          sent_last_hour: accountSends.filter((s) => s.at.getTime() > now.getTime() - HOUR_MS).length,
          sent_today: accountSends.length,
          caps: estimate.policy ? capsAt(estimate.policy, new Date(account.created_at), now) : { per_hour: null, per_day: null },
        };
      }),
    };
  }

  async items(ctx: RequestContext, query: QueueItemsQuery): Promise<{ items: QueueItemView[]; total: number; limit: number; offset: number }> {
    const now = this.clock();
    const zone = await this.zoneOf(ctx);
    const filter = [query.channelAccountId, query.status, query.origin];
    const { rows, total, accounts, depths, sends } = await this.db.inTenant(ctx, async (tx) => {
      if (query.channelAccountId && (await tx.query(QUEUE_ACCOUNT_BY_ID, [query.channelAccountId])).length === 0) {
        throw NotFound('channel_account', query.channelAccountId);
      }
      const rows = await tx.query<QueueItemRow>(QUEUE_ITEMS, [...filter, query.limit, query.offset]);
      const [{ total }] = await tx.query<{ total: number }>(QUEUE_ITEMS_TOTAL, filter);
      const ids = [...new Set(rows.map((r) => r.channel_account_id))];
      const accounts = (await tx.query<QueueAccountRecord>(QUEUE_ACCOUNTS)).filter((a) => ids.includes(a.id));
      const depths = await tx.query<{ channel_account_id: string; queued: number; cold: number }>(QUEUE_DEPTHS, [now]);
      return { rows, total, accounts, depths, sends: await this.recentSends(tx, ids, now) };
    });
    // The k-th queued message of an account is expected when the k-th send of its simulation falls.
    const expected = new Map<string, Date[]>();
    if (query.status === 'QUEUED') {
      for (const account of accounts) {
        const own = depths.filter((d) => d.channel_account_id === account.id);
        const queued = own.reduce((sum, d) => sum + d.queued, 0);
        const estimate = this.estimateFor(account, sends.get(account.id) ?? [], queued === 0 ? 1 : own.reduce((s, d) => s + d.cold, 0) / queued, zone, now);
        if (!estimate.sending || !estimate.policy) continue;
        const deepest = rows.reduce((max, r) => (r.channel_account_id === account.id ? Math.max(max, Number(r.position)) : max), 0);
        expected.set(account.id, expectedTimes(estimate.policy, estimate.state, deepest, estimate.options));
      }
    }
    const items = rows.map((row) => ({
      id: row.id,
      channel_account_id: row.channel_account_id,
      conversation_id: row.conversation_id,
      contact_id: row.contact_id,
      status: row.status,
      origin: row.origin,
      origin_id: row.origin_id,
      content: row.content,
      media: row.media,
      scheduled_for: iso(row.scheduled_for),
      created_at: iso(row.created_at)!,
      position: Number(row.position),
      expected_at: iso(expected.get(row.channel_account_id)?.[Number(row.position) - 1] ?? null),
    }));
    return { items, total, limit: query.limit, offset: query.offset };
  }

  private estimateFor(account: QueueAccountRecord, sends: { at: Date; automated: boolean }[], coldShare: number, zone: string, now: Date): AccountEstimate {
    const lastAutomated = sends.reduce((last, s) => (s.automated && s.at.getTime() > last ? s.at.getTime() : last), -Infinity);
    // The worker sleeps on the account until next_send_at: nothing goes before it.
    const from = account.next_send_at && new Date(account.next_send_at) > now ? new Date(account.next_send_at) : now;
    return {
      policy: isChannelKind(account.kind) ? effectivePacing(account.kind, account.pacing) : null,
      state: {
        now: from,
        accountCreatedAt: new Date(account.created_at),
        accountSends: sends.map((s) => s.at),
        lastAutomatedSendAt: Number.isFinite(lastAutomated) ? new Date(lastAutomated) : null,
      },
      options: { coldShare, timeZone: zone },
      sending: account.paused_at === null && account.is_active,
    };
  }

  private async recentSends(tx: Tx, accountIds: string[], now: Date) {
    const rows = await tx.query<{ channel_account_id: string; at: Date; automated: boolean }>(RECENT_SENDS, [accountIds, now]);
    const byAccount = new Map<string, { at: Date; automated: boolean }[]>();
    for (const row of rows) {
      const list = byAccount.get(row.channel_account_id) ?? [];
      list.push({ at: new Date(row.at), automated: row.automated });
      byAccount.set(row.channel_account_id, list);
    }
    return byAccount;
  }

  // Quiet hours are estimated in the organization's zone (the recipients' own zones are the worker's business).
  private async zoneOf(ctx: RequestContext): Promise<string> {
    const zone = await this.settings.plain(ctx.organizationId, 'time_zone');
    return zone && isValidTimeZone(zone) ? zone : 'UTC';
  }
}
