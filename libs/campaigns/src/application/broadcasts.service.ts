import { assertAllowed } from '@engage/identity';
import { Params } from '@engage/data-api';
import { withdrawQueued } from '@engage/messaging';
import type { Database, Tx } from '@engage/platform';
import { type Clock, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import { CAMPAIGNS_MANAGE } from '../campaigns.permissions';
import { audienceJson, parseAudience } from '../domain/audience';
import {
  ALLOWED_FROM,
  audienceOf,
  AUTO_PAUSE_AFTER_FAILURES,
  type BroadcastAction,
  type BroadcastRow,
  BROADCAST_STATUSES,
  type BroadcastStatus,
  countsOf,
  parseWholeNumber,
  ratesOf,
  REPLY_WINDOW_HOURS,
  transitionRefused,
} from '../domain/broadcast';
import { isPersonalised, isPlainObject, parseContent } from '../domain/content';
import {
  AUTO_PAUSE,
  BROADCAST_BY_ID,
  BROADCAST_FOR_UPDATE,
  CANCEL_WAITING,
  COUNT_BROADCASTS,
  FAILURES_BY_REASON,
  INSERT_BROADCAST,
  LIST_BROADCASTS,
  PUT_BACK,
  RECIPIENT_COUNTS,
  RECIPIENTS_CSV,
  SET_STATUS,
  writeRecipients,
} from '../infrastructure/campaigns.sql';
import type { AudienceReader } from './audience-reader';
import { broadcastAccount } from './channel-accounts';
import type { Tables } from './data-api-tables';
import { assertId } from './segments.service';

const MAX_NAME = 200;
const CREATE_FIELDS = ['name', 'channel_account_id', 'audience', 'content', 'reply_window_hours', 'auto_pause_after_failures'];
const MAX_SCHEDULE_AHEAD_MS = 366 * 86_400_000;

export function broadcastView(row: BroadcastRow, counts: { status: string; n: number }[]) {
  const {
    lease_until: _lease,
    last_handed_at: _handed,
    failures_in_a_row: _failures,
    ...rest
  } = row as BroadcastRow & {
    lease_until?: unknown;
    last_handed_at?: unknown;
  };
  return { ...rest, counts: countsOf(counts) };
}

// Broadcasts (docs/campaigns.md): a draft checked whole when created, then schedule, start, pause,
// resume and cancel, each allowed only from the statuses ALLOWED_FROM names (409 otherwise). The
// start writes every recipient once, in the transaction that moves the broadcast to `sending`, so
// a second start (or a second worker) finds it sending and changes nothing.
export class BroadcastsService {
  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
    private readonly audiences: AudienceReader,
    private readonly clock: Clock,
  ) {}

  async create(ctx: RequestContext, body: unknown) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    if (!isPlainObject(body)) throw ValidationFailed('campaigns.invalid_broadcast', 'body: must be an object {name, channel_account_id, audience, content}');
    const extra = Object.keys(body).find((key) => !CREATE_FIELDS.includes(key));
    if (extra !== undefined) throw ValidationFailed('campaigns.unknown_field', `${extra.slice(0, 64)}: unknown field`, { path: extra.slice(0, 64) });
    if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.trim().length > MAX_NAME) {
      throw ValidationFailed('campaigns.invalid_name', `name: is required, 1 to ${MAX_NAME} characters`, { path: 'name' });
    }
    const audience = parseAudience(body.audience);
    const replyWindowHours = parseWholeNumber(body.reply_window_hours, 'reply_window_hours', REPLY_WINDOW_HOURS);
    const autoPauseAfterFailures = parseWholeNumber(body.auto_pause_after_failures, 'auto_pause_after_failures', AUTO_PAUSE_AFTER_FAILURES);
    return this.db.inTenant(ctx, async (tx) => {
      const account = await broadcastAccount(tx, ctx, this.tables, body.channel_account_id);
      const content = parseContent(body.content, account.kind);
      // The audience must resolve now (its segment, its contacts, its filter).
      await this.audiences.where(tx, ctx, audience, new Params());
      const stored = { text: content.text, media_url: content.mediaUrl, media_kind: content.mediaKind };
      const [row] = await tx.query<BroadcastRow>(INSERT_BROADCAST, [
        (body.name as string).trim(),
        account.id,
        account.kind,
        JSON.stringify(audienceJson(audience)),
        JSON.stringify(stored),
        isPersonalised(content.text),
        ctx.userId,
        replyWindowHours,
        autoPauseAfterFailures,
      ]);
      return broadcastView(row, []);
    });
  }

  async list(ctx: RequestContext, query: { status?: string; limit?: number; offset?: number }) {
    if (query.status !== undefined && !(BROADCAST_STATUSES as readonly string[]).includes(query.status)) {
      throw ValidationFailed('campaigns.invalid_status', `status: must be one of ${BROADCAST_STATUSES.join(', ')}`, { path: 'status' });
    }
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const rows = await tx.query<BroadcastRow>(LIST_BROADCASTS, [query.status ?? null, limit, offset]);
        const [total] = await tx.query<{ n: number }>(COUNT_BROADCASTS, [query.status ?? null]);
        const counts = await tx.query<{ broadcast_id: string; status: string; n: number }>(RECIPIENT_COUNTS, [rows.map((r) => r.id)]);
        return {
          broadcasts: rows.map((row) =>
            broadcastView(
              row,
              counts.filter((c) => c.broadcast_id === row.id),
            ),
          ),
          total: total.n,
          limit,
          offset,
        };
      },
      { readOnly: true },
    );
  }

  async get(ctx: RequestContext, id: string) {
    assertId('broadcast', id);
    return this.db.inTenant(ctx, async (tx) => broadcastView(await this.row(tx, id), await this.counts(tx, id)), { readOnly: true });
  }

  async schedule(ctx: RequestContext, id: string, body: unknown) {
    const at = isPlainObject(body) ? body.at : undefined;
    const when = typeof at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(at) ? new Date(at) : null;
    const now = this.clock.now();
    if (!when || Number.isNaN(when.getTime())) throw ValidationFailed('campaigns.invalid_schedule', 'at: must be an ISO 8601 date and time', { path: 'at' });
    if (when.getTime() <= now.getTime()) throw ValidationFailed('campaigns.invalid_schedule', 'at: must be in the future', { path: 'at' });
    if (when.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS)
      throw ValidationFailed('campaigns.invalid_schedule', 'at: must be within a year', { path: 'at' });
    return this.move(ctx, id, 'schedule', 'scheduled', when);
  }

  async start(ctx: RequestContext, id: string) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('broadcast', id);
    return this.db.inTenant(ctx, async (tx) => {
      const row = await this.startIn(tx, ctx, id);
      return broadcastView(row, await this.counts(tx, id));
    });
  }

  // Moves a draft or scheduled broadcast to sending and writes its recipients, in the caller's
  // transaction (the row's lock makes a concurrent start wait, then find it sending: 409).
  async startIn(tx: Tx, ctx: RequestContext, id: string): Promise<BroadcastRow> {
    const current = await this.row(tx, id, true);
    if (!ALLOWED_FROM.start.includes(current.status)) throw transitionRefused('start', current.status);
    const now = this.clock.now();
    const params = new Params();
    params.add(id);
    params.add(now);
    const where = await this.audiences.where(tx, ctx, audienceOf(current), params);
    await tx.query(writeRecipients(where), params.values);
    const [row] = await tx.query<BroadcastRow>(SET_STATUS, [id, 'sending', null, now]);
    return row;
  }

  // Pause withdraws the broadcast's messages still waiting in the queue and puts their recipients
  // back, so nothing more goes out; resume hands them out again.
  pause = (ctx: RequestContext, id: string) => this.move(ctx, id, 'pause', 'paused', null, (tx, row) => this.withdraw(tx, ctx, row, 'paused'));
  resume = (ctx: RequestContext, id: string) => this.move(ctx, id, 'resume', 'sending');

  async cancel(ctx: RequestContext, id: string) {
    return this.move(ctx, id, 'cancel', 'cancelled', null, async (tx, row) => {
      await this.withdraw(tx, ctx, row, 'cancelled');
      await tx.query(CANCEL_WAITING, [id, this.clock.now()]);
    });
  }

  // After auto_pause_after_failures failed messages in a row (RecipientOutcomes, in its transaction):
  // the broadcast pauses itself with the reason shown, its waiting messages withdrawn as by a pause.
  async autoPauseIn(tx: Tx, ctx: RequestContext, id: string, reason: string): Promise<boolean> {
    const [row] = await tx.query<BroadcastRow>(AUTO_PAUSE, [id, this.clock.now(), reason]);
    if (!row) return false;
    await this.withdraw(tx, ctx, row, 'paused');
    return true;
  }

  // The broadcast's messages the queue has not taken yet are withdrawn (messaging's withdrawQueued)
  // and their recipients wait again, in the transaction that moves the broadcast.
  private async withdraw(tx: Tx, ctx: RequestContext, row: BroadcastRow, how: 'paused' | 'cancelled') {
    const from = { channelAccountId: row.channel_account_id, origin: 'broadcast' as const, originId: row.id };
    const withdrawn = await withdrawQueued(tx, ctx, from, `withdrawn: the broadcast was ${how}`);
    const recipients = withdrawn.map((m) => m.metadata?.broadcast_recipient_id).filter((r): r is string => typeof r === 'string');
    if (recipients.length > 0) await tx.query(PUT_BACK, [row.id, recipients, this.clock.now()]);
  }

  // GET .../<id>/report: counts per status, rates, failures by reason.
  async report(ctx: RequestContext, id: string) {
    assertId('broadcast', id);
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const row = await this.row(tx, id);
        const counts = countsOf(await this.counts(tx, id));
        const failures = await tx.query<{ reason: string; n: number }>(FAILURES_BY_REASON, [id]);
        return {
          broadcast_id: row.id,
          status: row.status,
          pause_reason: row.pause_reason,
          counts,
          ...ratesOf(counts),
          failures_by_reason: failures.map((f) => ({ reason: f.reason, count: f.n })),
        };
      },
      { readOnly: true },
    );
  }

  async recipientsCsv(ctx: RequestContext, id: string): Promise<Record<string, unknown>[]> {
    assertId('broadcast', id);
    return this.db.inTenant(
      ctx,
      async (tx) => {
        await this.row(tx, id);
        return tx.query<Record<string, unknown>>(RECIPIENTS_CSV, [id]);
      },
      { readOnly: true },
    );
  }

  private async move(
    ctx: RequestContext,
    id: string,
    action: BroadcastAction,
    to: BroadcastStatus,
    at: Date | null = null,
    also?: (tx: Tx, row: BroadcastRow) => Promise<unknown>,
  ) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('broadcast', id);
    return this.db.inTenant(ctx, async (tx) => {
      const current = await this.row(tx, id, true);
      if (!ALLOWED_FROM[action].includes(current.status)) throw transitionRefused(action, current.status);
      const [row] = await tx.query<BroadcastRow>(SET_STATUS, [id, to, at, this.clock.now()]);
      if (also) await also(tx, row);
      return broadcastView(row, await this.counts(tx, id));
    });
  }

  private async row(tx: Tx, id: string, lock = false): Promise<BroadcastRow> {
    const [row] = await tx.query<BroadcastRow>(lock ? BROADCAST_FOR_UPDATE : BROADCAST_BY_ID, [id]);
    if (!row) throw NotFound('broadcast', id);
    return row;
  }

  private counts(tx: Tx, id: string) {
    return tx.query<{ status: string; n: number }>(RECIPIENT_COUNTS, [[id]]);
  }
}
