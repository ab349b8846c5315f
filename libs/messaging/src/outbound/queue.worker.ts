import { createHash, randomUUID } from 'node:crypto';
import { defineQueue, type Database, type PassResult, type QueueWorker } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import type { OrganizationSettings } from '@engage/identity';
import { isChannelKind } from '../domain/statuses';
import { effectivePacing, nextSendAt, pauseAfter, type PacingDecision, type PacingPolicy, recipientTimeZone } from './pacing';
import type { MessageRow } from '../infrastructure/messaging.sql';
import type { OutboundDispatcher } from './dispatcher';
import {
  ACCOUNT_SENDS,
  QUEUE_CANDIDATES,
  type QueueAccountRow,
  SET_EXPECTED,
  SYSTEM_DUE_ACCOUNTS,
  SYSTEM_LEASE_ACCOUNT,
  SYSTEM_NEXT_DUE,
  SYSTEM_RECORD_OUTCOME,
  SYSTEM_RELEASE_ACCOUNT,
  TAKE_QUEUED,
} from './queue.sql';

// How many accounts one pass sends on at once (one provider call each), how many queued messages
// of an account it weighs per send, and how long it may hold an account (longer than any provider
// call: the provider time-out is far shorter).
const ACCOUNTS_PER_PASS = 32;
const CANDIDATES = 20;
const LEASE_SECONDS = 120;
// An account whose pacing has no gap (an official API with its own limits, or pacing switched off)
// sends the messages it may send now one after another under one lease, up to this long.
const BURST_MS = 30_000;
// An inactive account's queue is looked at again after this long (its messages wait, not fail).
const INACTIVE_RETRY_MS = 60_000;
const POLL_MS = 1_000;

// Tells this process's queue worker that a message was queued.
export class OutboundSignal {
  private readonly listeners: (() => void)[] = [];

  onQueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  queued(): void {
    for (const listener of this.listeners) listener();
  }
}

// The origins whose unpersonalised messages may share a provider call (§4.2's several receivers).
const BATCHED_ORIGINS: readonly string[] = ['broadcast', 'sequence'];

// One provider call can carry both: the same source, text and media.
const sameContent = (a: MessageRow, b: MessageRow) =>
  a.origin === b.origin && a.origin_id === b.origin_id && a.content === b.content && JSON.stringify(a.media) === JSON.stringify(b.media);

type Candidate = MessageRow & { customer_wrote_at: Date | null };

// The gap after a send is drawn once per send, not per look: a random number fixed by the account
// and its last automated send, so looking again does not draw again (which would skew the gaps).
export function gapDraw(accountId: string, lastSendAt: Date | null): number {
  const digest = createHash('sha256')
    .update(`${accountId}:${lastSendAt?.toISOString() ?? 'first'}`)
    .digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

// Sends queued messages (docs/messaging.md, "The paced send queue"): each pass takes the accounts
// whose next send is due, one provider call per account at a time (a lease on the account row), picks
// the first of the account's next messages the pacing lets go now (priority, round-robin, per-recipient
// limits, quiet hours at the recipient's time), delivers it through the dispatcher, and records the
// outcome on the account (a run of failures, a 429 or a ban pauses it). An account with nothing
// sendable now is put to sleep until its earliest allowed time.
export class OutboundQueueWorker implements QueueWorker {
  constructor(
    private readonly db: Database,
    private readonly dispatcher: OutboundDispatcher,
    private readonly settings: Pick<OrganizationSettings, 'plain'>,
    private readonly signal: OutboundSignal,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  // A message queued in this process wakes the loop at once; others' are found by polling.
  started(wake: () => void): void {
    this.signal.onQueued(wake);
  }

  async pass(): Promise<PassResult> {
    const due = await this.db.systemQuery<{ id: string }>(SYSTEM_DUE_ACCOUNTS, [ACCOUNTS_PER_PASS, this.clock()]);
    const sent = await Promise.all(due.map((account) => this.sendOn(account.id)));
    if (sent.some(Boolean)) return 0;
    const [next] = await this.db.systemQuery<{ at: Date | null }>(SYSTEM_NEXT_DUE, [this.clock()]);
    if (!next?.at) return undefined;
    return Math.max(0, Math.min(POLL_MS, new Date(next.at).getTime() - this.clock().getTime()));
  }

  // One send on the account, if its pacing allows one now. True when a message was taken.
  async sendOn(accountId: string): Promise<boolean> {
    const [account] = await this.db.systemQuery<QueueAccountRow>(SYSTEM_LEASE_ACCOUNT, [accountId, LEASE_SECONDS, this.clock()]);
    if (!account) return false;
    const ctx: RequestContext = { organizationId: account.organization_id, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    if (!account.is_active || !isChannelKind(account.kind)) {
      await this.release(account.id, new Date(this.clock().getTime() + INACTIVE_RETRY_MS));
      return false;
    }
    const policy = effectivePacing(account.kind, account.pacing);
    let choice: Awaited<ReturnType<OutboundQueueWorker['choose']>>;
    try {
      choice = await this.choose(ctx, account, policy);
      if ('wait' in choice) {
        await this.release(account.id, choice.wait);
        return false;
      }
    } catch (error) {
      await this.release(account.id, null).catch(() => undefined);
      throw error;
    }
    let failures = account.consecutive_failures;
    let pause: string | null = null;
    try {
      const started = Date.now();
      let next: MessageRow[] | null = choice.messages;
      // Burst candidates already sent as companions of an earlier call.
      const done = new Set<string>();
      for (let i = 0; next; i++) {
        const outcome = await this.dispatcher.deliverQueued(ctx, next);
        if ('provider' in outcome) {
          const after = pauseAfter(policy, failures, outcome.provider);
          failures = after.consecutiveFailures;
          if (after.pause) pause = `${after.pause.reason}: ${after.pause.message}`;
        }
        // A burst stops at a pause, a failure, or its time; each further message is taken just before
        // its call, so a worker that dies mid-burst leaves the rest QUEUED.
        next = null;
        while (!pause && failures === 0 && Date.now() - started < BURST_MS && i < choice.burst.length) {
          next = await this.takeNext(ctx, account.kind, policy, choice.burst, i, done);
          if (next) break;
          i += 1;
        }
      }
    } finally {
      await this.db.systemQuery(SYSTEM_RECORD_OUTCOME, [account.id, failures, pause]);
    }
    return true;
  }

  // The first candidate the pacing lets go now, taken (QUEUED to PENDING), with the companions that
  // share its provider call (the same broadcast or sequence content to other receivers, up to
  // receivers_per_call, each within its own limits and the account's caps); else when to look again.
  private async choose(
    ctx: RequestContext,
    account: QueueAccountRow,
    policy: PacingPolicy,
  ): Promise<{ messages: MessageRow[]; burst: Candidate[] } | { wait: Date | null }> {
    const now = this.clock();
    const organizationZone = (await this.settings.plain(account.organization_id, 'time_zone')) ?? 'UTC';
    return this.db.inTenant(ctx, async (tx) => {
      const candidates = await tx.query<Candidate>(QUEUE_CANDIDATES, [account.id, CANDIDATES, now]);
      if (candidates.length === 0) return { wait: null };
      const sends = (await tx.query<{ at: Date; contact_id: string; automated: boolean }>(ACCOUNT_SENDS, [account.id, now])).map((s) => ({
        at: new Date(s.at),
        contactId: s.contact_id,
        automated: s.automated,
      }));
      const last = sends.reduce((latest, s) => (s.automated && s.at.getTime() > latest ? s.at.getTime() : latest), -Infinity);
      const lastAutomatedSendAt = Number.isFinite(last) ? new Date(last) : null;
      // The recipients' last hour, from the same read.
      const hourAgo = now.getTime() - 3_600_000;
      const recipientSends = sends.filter((s) => s.at.getTime() > hourAgo);
      const random = gapDraw(account.id, lastAutomatedSendAt);
      const decide = (candidate: Candidate, alsoNow: number): PacingDecision => {
        const phone = typeof candidate.metadata.to === 'string' ? candidate.metadata.to : null;
        return nextSendAt(
          policy,
          {
            now,
            accountCreatedAt: new Date(account.created_at),
            // The receivers already in this call count toward the caps.
            accountSends: [...sends.map((s) => s.at), ...Array.from({ length: alsoNow }, () => now)],
            lastAutomatedSendAt,
            recipient: {
              lastInboundAt: candidate.customer_wrote_at ? new Date(candidate.customer_wrote_at) : null,
              sends: recipientSends.filter((s) => s.contactId === candidate.contact_id).map((s) => s.at),
              timeZone: recipientTimeZone(null, phone ? `+${phone.replace(/^\+/, '')}` : null, organizationZone),
            },
          },
          () => random,
        );
      };
      let earliest: PacingDecision | null = null;
      for (const [index, candidate] of candidates.entries()) {
        const decision = decide(candidate, 0);
        if (decision.at.getTime() > now.getTime()) {
          if (!earliest || decision.at < earliest.at) earliest = decision;
          continue;
        }
        const [row] = await tx.query<MessageRow>(TAKE_QUEUED, [candidate.id, now]);
        if (!row) continue;
        const taken = [row];
        const room = this.dispatcher.sharesCalls(account.kind) && BATCHED_ORIGINS.includes(row.origin) ? policy.receivers_per_call - 1 : 0;
        const seen = new Set([row.contact_id]);
        for (const other of candidates.slice(index + 1)) {
          if (taken.length > room) break;
          if (!sameContent(other, row) || seen.has(other.contact_id) || decide(other, taken.length).at.getTime() > now.getTime()) continue;
          const [companion] = await tx.query<MessageRow>(TAKE_QUEUED, [other.id, now]);
          if (companion) {
            taken.push(companion);
            seen.add(companion.contact_id);
          }
        }
        return { messages: taken, burst: gapless(policy) ? burstAfter(candidates, taken, decide) : [] };
      }
      // Nothing may go yet: the head shows when it is expected, and the account sleeps until then.
      await tx.query(SET_EXPECTED, [[candidates[0].id], earliest!.at]);
      return { wait: earliest!.at };
    });
  }

  // The burst's message at `index` taken now, with the companions that share its provider call (the
  // same broadcast or sequence content further in the burst); null when another worker took it.
  private async takeNext(ctx: RequestContext, kind: string, policy: PacingPolicy, burst: Candidate[], index: number, done: Set<string>) {
    const head = burst[index];
    if (done.has(head.id)) return null;
    return this.db.inTenant(ctx, async (tx) => {
      const [row] = await tx.query<MessageRow>(TAKE_QUEUED, [head.id, this.clock()]);
      if (!row) return null;
      const taken = [row];
      const room = this.dispatcher.sharesCalls(kind) && BATCHED_ORIGINS.includes(row.origin) ? policy.receivers_per_call - 1 : 0;
      for (const other of burst.slice(index + 1)) {
        if (taken.length > room) break;
        if (done.has(other.id) || !sameContent(other, row)) continue;
        const [companion] = await tx.query<MessageRow>(TAKE_QUEUED, [other.id, this.clock()]);
        done.add(other.id);
        if (companion) taken.push(companion);
      }
      return taken;
    });
  }

  private async release(accountId: string, nextSendAt: Date | null): Promise<void> {
    await this.db.systemQuery(SYSTEM_RELEASE_ACCOUNT, [accountId, nextSendAt]);
  }
}

// No pause between two automated sends: the account may send what the caps and the recipients'
// limits allow now, one after another.
const gapless = (policy: PacingPolicy) => policy.gap_seconds[1] === 0 && policy.cold_gap_seconds[1] === 0 && policy.per_second === null;

// The candidates that may follow the first send now, in serving order (SERVING_ORDER), each
// weighed with the sends before it counted (caps), one message per recipient.
function burstAfter(candidates: Candidate[], taken: MessageRow[], decide: (candidate: Candidate, alsoNow: number) => PacingDecision): Candidate[] {
  const takenIds = new Set(taken.map((m) => m.id));
  const seen = new Set(taken.map((m) => m.contact_id));
  const burst: Candidate[] = [];
  for (const candidate of candidates) {
    if (takenIds.has(candidate.id) || seen.has(candidate.contact_id)) continue;
    if (decide(candidate, taken.length + burst.length).reason !== 'now') break;
    seen.add(candidate.contact_id);
    burst.push(candidate);
  }
  return burst;
}

export const outboundQueue = defineQueue({ name: 'messaging.outbound', worker: OutboundQueueWorker, pollMs: () => POLL_MS });
