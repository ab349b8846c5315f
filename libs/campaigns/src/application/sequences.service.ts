import { assertAllowed } from '@engage/identity';
import { Params } from '@engage/data-api';
import type { Database, Tx } from '@engage/platform';
import { type Clock, Conflict, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import { CAMPAIGNS_MANAGE } from '../campaigns.permissions';
import { type Audience, parseAudience } from '../domain/audience';
import { isPlainObject } from '../domain/content';
import {
  ENROLLMENT_STATUSES,
  parseExitOn,
  parseName,
  parseSteps,
  SEQUENCE_ALLOWED_FROM,
  SEQUENCE_STATUSES,
  type SequenceAction,
  type SequenceRow,
  type SequenceStatus,
  sequenceTransitionRefused,
  storedSteps,
  timingOf,
} from '../domain/sequence';
import type { EnrollmentRow } from '../domain/sequence-tables';
import { stepDueAt } from '../domain/step-timing';
import {
  COUNT_SEQUENCES,
  ENROLLMENT_BY_ID,
  ENROLLMENT_COUNTS,
  enrollmentCandidates,
  EXIT_BY_HAND,
  EXIT_CONTACT,
  INSERT_ENROLLMENTS,
  INSERT_SEQUENCE,
  INSERT_VERSION,
  LIST_SEQUENCES,
  PAUSE_ENROLLMENTS,
  REPLACE_DRAFT_VERSION,
  RESUME_ENROLLMENTS,
  SEQUENCE_BY_ID,
  SEQUENCE_FOR_UPDATE,
  SET_SEQUENCE_STATUS,
  UPDATE_SEQUENCE,
} from '../infrastructure/sequences.sql';
import type { AudienceReader } from './audience-reader';
import { broadcastAccount } from './channel-accounts';
import type { Tables } from './data-api-tables';
import { type RecipientZones, ZONE_CLOCK } from './recipient-zones';
import { assertId } from './segments.service';

export interface EnrollmentAnswer {
  enrolled: number;
  already_enrolled: number;
  skipped: { no_opt_in: number; no_phone: number };
}

function sequenceView(row: SequenceRow, counts: { status: string; n: number }[]) {
  const enrollments = Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, counts.find((c) => c.status === s)?.n ?? 0]));
  return { ...row, enrollments };
}

const only = (body: Record<string, unknown>, allowed: string[]) => {
  const extra = Object.keys(body).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw ValidationFailed('campaigns.unknown_field', `${extra.slice(0, 64)}: unknown field`, { path: extra.slice(0, 64) });
};

// Drip sequences (docs/campaigns.md, "Drip sequences"): a draft checked whole when created;
// activate, pause; a change to an activated sequence is a new version (running enrolments keep
// theirs); enrolments of contacts or a segment, and exits by hand. The worker (SequencePass) sends
// the steps.
export class SequencesService {
  constructor(
    private readonly db: Database,
    private readonly tables: Tables,
    private readonly audiences: AudienceReader,
    private readonly zones: RecipientZones,
    private readonly clock: Clock,
  ) {}

  async create(ctx: RequestContext, body: unknown) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    if (!isPlainObject(body)) throw ValidationFailed('campaigns.invalid_sequence', 'body: must be an object {name, channel_account_id, steps, exit_on?}');
    only(body, ['name', 'channel_account_id', 'steps', 'exit_on']);
    const name = parseName(body.name);
    return this.db.inTenant(ctx, async (tx) => {
      const account = await broadcastAccount(tx, ctx, this.tables, body.channel_account_id, 'channel_account_id', 'sequences');
      const steps = storedSteps(parseSteps(body.steps, account.kind));
      const exitOn = parseExitOn(body.exit_on);
      const now = this.clock.now();
      const [row] = await tx.query<SequenceRow>(INSERT_SEQUENCE, [
        name,
        account.id,
        account.kind,
        JSON.stringify(steps),
        JSON.stringify(exitOn),
        ctx.userId,
        now,
      ]);
      await tx.query(INSERT_VERSION, [row.id, 1, JSON.stringify(steps), JSON.stringify(exitOn), now]);
      return sequenceView(row, []);
    });
  }

  async list(ctx: RequestContext, query: { status?: string; limit?: number; offset?: number }) {
    if (query.status !== undefined && !(SEQUENCE_STATUSES as readonly string[]).includes(query.status)) {
      throw ValidationFailed('campaigns.invalid_status', `status: must be one of ${SEQUENCE_STATUSES.join(', ')}`, { path: 'status' });
    }
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const rows = await tx.query<SequenceRow>(LIST_SEQUENCES, [query.status ?? null, limit, offset]);
        const [total] = await tx.query<{ n: number }>(COUNT_SEQUENCES, [query.status ?? null]);
        const counts = await tx.query<{ sequence_id: string; status: string; n: number }>(ENROLLMENT_COUNTS, [rows.map((r) => r.id)]);
        const sequences = rows.map((row) =>
          sequenceView(
            row,
            counts.filter((c) => c.sequence_id === row.id),
          ),
        );
        return { sequences, total: total.n, limit, offset };
      },
      { readOnly: true },
    );
  }

  async get(ctx: RequestContext, id: string) {
    assertId('sequence', id);
    return this.db.inTenant(ctx, async (tx) => sequenceView(await this.row(tx, id), await this.counts(tx, id)), { readOnly: true });
  }

  // PATCH {name?, steps?, exit_on?}: a draft changes in place; an activated sequence gets a new
  // version with the changed steps and exits, which new enrolments take.
  async update(ctx: RequestContext, id: string, body: unknown) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('sequence', id);
    if (!isPlainObject(body) || Object.keys(body).length === 0) {
      throw ValidationFailed('campaigns.invalid_sequence', 'body: must be an object with one or more of name, steps, exit_on');
    }
    only(body, ['name', 'steps', 'exit_on']);
    const name = body.name === undefined ? undefined : parseName(body.name);
    return this.db.inTenant(ctx, async (tx) => {
      const current = await this.row(tx, id, true);
      const steps = body.steps === undefined ? current.steps : storedSteps(parseSteps(body.steps, current.channel_kind));
      const exitOn = body.exit_on === undefined ? current.exit_on : parseExitOn(body.exit_on);
      const changesVersion = body.steps !== undefined || body.exit_on !== undefined;
      const now = this.clock.now();
      let version = current.version;
      if (changesVersion && current.status === 'draft') await tx.query(REPLACE_DRAFT_VERSION, [id, JSON.stringify(steps), JSON.stringify(exitOn)]);
      else if (changesVersion) {
        version += 1;
        await tx.query(INSERT_VERSION, [id, version, JSON.stringify(steps), JSON.stringify(exitOn), now]);
      }
      const [row] = await tx.query<SequenceRow>(UPDATE_SEQUENCE, [id, name ?? current.name, JSON.stringify(steps), JSON.stringify(exitOn), version, now]);
      return sequenceView(row, await this.counts(tx, id));
    });
  }

  // Activation resumes the enrolments a pause held; a pause holds them (their steps wait).
  activate = (ctx: RequestContext, id: string) => this.move(ctx, id, 'activate', 'active', RESUME_ENROLLMENTS);
  pause = (ctx: RequestContext, id: string) => this.move(ctx, id, 'pause', 'paused', PAUSE_ENROLLMENTS);

  // Enrols the named contacts or a segment's on the sequence's current version. A contact not opted
  // in, or without a phone, is skipped; one with a running enrolment keeps it. The first step's time
  // counts from now in the contact's zone.
  async enroll(ctx: RequestContext, id: string, body: unknown): Promise<EnrollmentAnswer> {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('sequence', id);
    if (!isPlainObject(body)) throw ValidationFailed('campaigns.invalid_audience', 'body: must be {contact_ids} or {segment_id}', { path: 'body' });
    const keys = Object.keys(body);
    if (keys.length !== 1 || !['contact_ids', 'segment_id'].includes(keys[0])) {
      throw ValidationFailed('campaigns.invalid_audience', 'body: must have exactly one of contact_ids, segment_id', { path: 'body' });
    }
    return this.enrollAudience(ctx, id, parseAudience(body, ''));
  }

  // The enrolment itself, for the caller's audience (the endpoint's, or a rule's one contact through
  // the StartSequence command), with the caller's row-level security.
  async enrollAudience(ctx: RequestContext, id: string, audience: Audience): Promise<EnrollmentAnswer> {
    const zoneOf = await this.zones.forOrganization(ctx.organizationId);
    return this.db.inTenant(ctx, async (tx) => {
      const sequence = await this.row(tx, id, true);
      if (!SEQUENCE_ALLOWED_FROM.enroll.includes(sequence.status)) throw sequenceTransitionRefused('enroll', sequence.status);
      const params = new Params();
      const where = await this.audiences.where(tx, ctx, audience, params);
      const candidates = await tx.query<{ id: string; phone: string | null; opted_in: boolean }>(enrollmentCandidates(where), params.values);
      const reachable = candidates.filter((c) => c.opted_in && c.phone !== null);
      const now = this.clock.now();
      const first = timingOf(sequence.steps[0]);
      const times = reachable.map((c) => stepDueAt(now, first, zoneOf(c.phone), ZONE_CLOCK));
      const inserted = await tx.query(INSERT_ENROLLMENTS, [id, sequence.version, now, reachable.map((c) => c.id), times]);
      return {
        enrolled: inserted.length,
        already_enrolled: reachable.length - inserted.length,
        skipped: { no_opt_in: candidates.filter((c) => !c.opted_in).length, no_phone: candidates.filter((c) => c.opted_in && c.phone === null).length },
      };
    });
  }

  // Every running enrolment of the contact ends (`exited`, `manual`): a rule's stop_sequences.
  async exitContact(ctx: RequestContext, contactId: string): Promise<{ exited: number }> {
    const rows = await this.db.inTenant(ctx, (tx) => tx.query(EXIT_CONTACT, [contactId, this.clock.now()]));
    return { exited: rows.length };
  }

  // DELETE .../enrollments/<id>: a running enrolment ends (`exited`, `manual`); 409 when it had ended.
  async exit(ctx: RequestContext, id: string, enrollmentId: string) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('sequence', id);
    assertId('enrollment', enrollmentId);
    return this.db.inTenant(ctx, async (tx) => {
      const [exited] = await tx.query<EnrollmentRow>(EXIT_BY_HAND, [enrollmentId, id, this.clock.now()]);
      if (exited) return exited;
      const [row] = await tx.query<EnrollmentRow>(ENROLLMENT_BY_ID, [enrollmentId, id]);
      if (!row) throw NotFound('enrollment', enrollmentId);
      throw Conflict('campaigns.enrollment_ended', `This enrolment has ended (${row.status}): only an active or paused one can be exited`, {
        status: row.status,
      });
    });
  }

  private async move(ctx: RequestContext, id: string, action: SequenceAction, to: SequenceStatus, enrollments: string) {
    assertAllowed(ctx.role, CAMPAIGNS_MANAGE);
    assertId('sequence', id);
    return this.db.inTenant(ctx, async (tx) => {
      const current = await this.row(tx, id, true);
      if (!SEQUENCE_ALLOWED_FROM[action].includes(current.status)) throw sequenceTransitionRefused(action, current.status);
      const now = this.clock.now();
      const [row] = await tx.query<SequenceRow>(SET_SEQUENCE_STATUS, [id, to, now]);
      await tx.query(enrollments, [id, now]);
      return sequenceView(row, await this.counts(tx, id));
    });
  }

  private async row(tx: Tx, id: string, lock = false): Promise<SequenceRow> {
    const [row] = await tx.query<SequenceRow>(lock ? SEQUENCE_FOR_UPDATE : SEQUENCE_BY_ID, [id]);
    if (!row) throw NotFound('sequence', id);
    return row;
  }

  private counts(tx: Tx, id: string) {
    return tx.query<{ status: string; n: number }>(ENROLLMENT_COUNTS, [[id]]);
  }
}
