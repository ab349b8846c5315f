import { createHash, randomUUID } from 'node:crypto';
import { defineQueue, type Database, type PassResult, type QueueWorker } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import type { OrganizationSettings } from '@engage/identity';
import { isChannelKind } from '../domain/statuses';
import { effectivePacing, nextSendAt, pauseAfter, type PacingDecision, type PacingPolicy, recipientTimeZone } from './pacing';
import type { MessageRow } from '../infrastructure/messaging.sql';
import { type OutboundDispatcher, QueuedRun } from './dispatcher';
import { inOrder, type TakenMessage } from './finish-send';
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
// A gapless account's burst: how many of its next messages one look weighs and may send in a row.
const BURST = 60;
const LEASE_SECONDS = 120;
// An account whose pacing has no gap (an official API with its own limits, or pacing switched off)
// sends the messages it may send now (up to BURST) one after another under one lease, up to this long.
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

type Candidate = TakenMessage;

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
      const run = new QueuedRun();
      const calls = callsOf(choice.burst, (origin) => this.room(account.kind, policy, origin));
      // A burst stops at a pause, a failure, or its time. Each later call's messages are taken in
      // the commit that records the call before (the dispatcher's `next`), so a worker that dies
      // mid-burst leaves only the call on the wire PENDING and the rest QUEUED.
      const more = () => (!pause && failures === 0 && Date.now() - started < BURST_MS ? (calls.next().value ?? null) : null);
      let next: TakenMessage[] = choice.messages;
      while (next.length > 0) {
        let asked: string[] | null = null;
        ({ taken: next } = await this.dispatcher.deliverQueued(ctx, next, {
          run,
          next: (outcome) => {
            if ('provider' in outcome) {
              const after = pauseAfter(policy, failures, outcome.provider);
              failures = after.consecutiveFailures;
              if (after.pause) pause = `${after.pause.reason}: ${after.pause.message}`;
            }
            asked = more();
            return asked ? { ids: asked, at: this.clock() } : null;
          },
        }));
        // Another process took them meanwhile: the burst goes on with the call after.
        while (next.length === 0 && asked) {
          asked = more();
          if (asked) next = await this.take(ctx, asked);
        }
      }
    } finally {
      await this.db.systemQuery(SYSTEM_RECORD_OUTCOME, [account.id, failures, pause]);
    }
    return true;
  }

  // How many more receivers may share a call with a message of this origin (§4.2's several receivers).
  private room(kind: string, policy: PacingPolicy, origin: string): number {
    return this.dispatcher.sharesCalls(kind) && BATCHED_ORIGINS.includes(origin) ? policy.receivers_per_call - 1 : 0;
  }

  // The first candidate the pacing lets go now, taken (QUEUED to PENDING), with the companions that
  // share its provider call (the same broadcast or sequence content to other receivers, up to
  // receivers_per_call, each within its own limits and the account's caps); else when to look again.
  // A gapless account's burst: the candidates that may follow now.
  private async choose(
    ctx: RequestContext,
    account: QueueAccountRow,
    policy: PacingPolicy,
  ): Promise<{ messages: TakenMessage[]; burst: Candidate[] } | { wait: Date | null }> {
    const now = this.clock();
    const organizationZone = (await this.settings.plain(account.organization_id, 'time_zone')) ?? 'UTC';
    return this.db.inTenant(ctx, async (tx) => {
      const candidates = await tx.query<Candidate>(QUEUE_CANDIDATES, [account.id, gapless(policy) ? BURST : CANDIDATES, now]);
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
              // Only quiet hours read it (parsing the number is the costliest part of a decision).
              timeZone: policy.quiet_hours ? recipientTimeZone(null, phone ? `+${phone.replace(/^\+/, '')}` : null, organizationZone) : organizationZone,
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
        const call = [candidate];
        const room = this.room(account.kind, policy, candidate.origin);
        const seen = new Set([candidate.contact_id]);
        for (const other of candidates.slice(index + 1)) {
          if (call.length > room) break;
          if (!sameContent(other, candidate) || seen.has(other.contact_id) || decide(other, call.length).at.getTime() > now.getTime()) continue;
          call.push(other);
          seen.add(other.contact_id);
        }
        const ids = call.map((m) => m.id);
        const taken = inOrder(ids, await tx.query<TakenMessage>(TAKE_QUEUED, [ids, now], { prepare: true }));
        if (taken.length === 0) continue;
        return { messages: taken, burst: gapless(policy) ? burstAfter(candidates, taken, decide) : [] };
      }
      // Nothing may go yet: the head shows when it is expected, and the account sleeps until then.
      await tx.query(SET_EXPECTED, [[candidates[0].id], earliest!.at]);
      return { wait: earliest!.at };
    });
  }

  // Queued messages taken now, in the order asked; those another process took are left out.
  private take(ctx: RequestContext, ids: string[]): Promise<TakenMessage[]> {
    return this.db.inTenant(ctx, async (tx) => inOrder(ids, await tx.query<TakenMessage>(TAKE_QUEUED, [ids, this.clock()], { prepare: true })));
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

// The burst's provider calls in order: each the next candidate not yet in a call, with the later
// ones of the same content (other receivers) that may share it, up to `room` of its origin.
function* callsOf(burst: Candidate[], room: (origin: string) => number): Generator<string[], null> {
  const done = new Set<string>();
  for (const [index, head] of burst.entries()) {
    if (done.has(head.id)) continue;
    const call = [head.id];
    for (const other of burst.slice(index + 1)) {
      if (call.length > room(head.origin)) break;
      if (done.has(other.id) || !sameContent(other, head)) continue;
      call.push(other.id);
      done.add(other.id);
    }
    yield call;
  }
  return null;
}

export const outboundQueue = defineQueue({ name: 'messaging.outbound', worker: OutboundQueueWorker, pollMs: () => POLL_MS });
