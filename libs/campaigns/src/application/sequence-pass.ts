import { randomUUID } from 'node:crypto';
import { defineQueue, type Database, type PassResult, type QueueWorker, type Tx } from '@engage/platform';
import { type OutboundDispatcher, upsertConversation } from '@engage/messaging';
import { type Clock, DomainError, type RequestContext } from '@engage/shared-kernel';
import { renderFor } from '../domain/content';
import { type ExitOn, type StoredStep, timingOf } from '../domain/sequence';
import { stepDueAt } from '../domain/step-timing';
import { CLAIM_STEP, DUE_ENROLLMENT, EXIT_ONE, REFUSED_STEP, SET_STEP_MESSAGE, SYSTEM_DUE_STEPS } from '../infrastructure/sequences.sql';
import { type RecipientZones, ZONE_CLOCK } from './recipient-zones';

const DUE_PER_PASS = 100;

// A step another process claimed first (or whose enrolment or sequence stopped meanwhile): its
// transaction is rolled back and nothing is stored.
class NotClaimed extends Error {}

interface DueEnrollment {
  id: string;
  sequence_id: string;
  contact_id: string;
  status: string;
  current_step: number;
  next_step_at: Date | null;
  steps: StoredStep[];
  exit_on: ExitOn;
  sequence_status: string;
  channel_account_id: string;
  channel_kind: 'chat_app' | 'sms';
  contact: Record<string, unknown> | null;
  phone: string | null;
}

const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

// The sequences' worker (a hot queue of worker processes): finds active enrolments whose next step
// is due (by the partial index on next_step_at), checks them again (enrolment and sequence active,
// contact opted in and reachable) and hands the step to messaging's paced queue through
// OutboundDispatcher.enqueue (origin `sequence`, origin_id the sequence). The step's claim (the
// enrolment moved on, and its (enrolment, step) row, unique) is written in the transaction that stores
// the message: a worker killed at any point, or two workers at once, send each step at most once.
export class SequencePass implements QueueWorker {
  constructor(
    private readonly db: Database,
    private readonly dispatcher: OutboundDispatcher,
    private readonly zones: RecipientZones,
    private readonly clock: Clock,
  ) {}

  async pass(): Promise<PassResult> {
    const due = await this.db.systemQuery<{ id: string; organization_id: string }>(SYSTEM_DUE_STEPS, [this.clock.now(), DUE_PER_PASS]);
    let handed = 0;
    // Each organization's zone setting read once a pass.
    const zones = new Map<string, Promise<(phone: string | null) => string>>();
    for (const { id, organization_id } of due) if (await this.fire(organization_id, id, zones)) handed += 1;
    // A full page: look again at once.
    return due.length === DUE_PER_PASS && handed > 0 ? 0 : undefined;
  }

  // Hands the enrolment's due step to the queue; false when it was not (not due any more, claimed
  // elsewhere, refused, or the enrolment ended here).
  async fire(organizationId: string, enrollmentId: string, zones = new Map<string, Promise<(phone: string | null) => string>>()): Promise<boolean> {
    const ctx = systemCtx(organizationId);
    const now = this.clock.now();
    const [e] = await this.db.inTenant(ctx, (tx) => tx.query<DueEnrollment>(DUE_ENROLLMENT, [enrollmentId]), { readOnly: true });
    if (!e || e.status !== 'active' || e.sequence_status !== 'active' || !e.next_step_at || e.next_step_at > now) return false;
    const step = e.steps[e.current_step];
    if (!step) return false;
    if (!e.contact || e.contact.opt_in_status !== true || !e.phone) {
      const reason = e.contact && e.contact.opt_in_status !== true ? 'opt_out' : 'unreachable';
      await this.db.inTenant(ctx, (tx) => tx.query(EXIT_ONE, [e.id, reason, now]));
      return false;
    }
    const following = e.steps[e.current_step + 1];
    if (!zones.has(organizationId)) zones.set(organizationId, this.zones.forOrganization(organizationId));
    const zoneOf = await zones.get(organizationId)!;
    // The next step's delay counts from this hand-over.
    const nextAt = following ? stepDueAt(now, timingOf(following), zoneOf(e.phone), ZONE_CLOCK) : null;
    const resolve = async (tx: Tx) => {
      const [claimed] = await tx.query(CLAIM_STEP, [e.id, e.current_step, now, nextAt, e.sequence_id]);
      if (!claimed) throw new NotClaimed();
      return upsertConversation(tx, ctx, e.contact_id, e.channel_account_id, 0);
    };
    try {
      // The step's message id is written with the message, in its storing transaction.
      const stored = async (tx: Tx, messageIds: string[]) => {
        await tx.query(SET_STEP_MESSAGE, [e.id, e.current_step, messageIds[0]]);
      };
      await this.dispatcher.enqueue(
        ctx,
        { kind: e.channel_kind, resolve, stored },
        {
          message: renderFor(step.content.text, e.contact),
          mediaUrls: step.content.media_url ? [step.content.media_url] : [],
          ...(step.content.media_kind ? { mediaKind: step.content.media_kind as 'image' | 'video' | 'document' } : {}),
          to: e.phone,
          author: { origin: 'sequence', originId: e.sequence_id },
          // A step waiting in the queue when the customer writes is withdrawn, as the reply ends the enrolment.
          metadata: { sequence_enrollment_id: e.id, sequence_step: e.current_step, ...(e.exit_on.reply ? { withdraw_on_reply: true } : {}) },
        },
      );
      return true;
    } catch (error) {
      if (error instanceof NotClaimed) return false;
      if (!(error instanceof DomainError)) throw error;
      // Refused before anything was stored (the channel's rules, a plan's limit): recorded on the step.
      const reason = `${error.code}: ${error.message}`.slice(0, 2000);
      await this.db.inTenant(ctx, (tx) => tx.query(REFUSED_STEP, [e.id, e.current_step, now, nextAt, reason]));
      return false;
    }
  }
}

export const sequenceQueue = defineQueue({ name: 'campaigns.sequences', worker: SequencePass, pollMs: () => 1_000 });
