import { type Database, type OutboundClient, OutboundError, type SecretBox, type Tx } from '@engage/platform';
import { type Clock, groupBy, type RequestContext } from '@engage/shared-kernel';
import { deliveryHeaders } from '../domain/signature';
import { CLAIM, type DeliveryJob, HAND_OVER, LEASE_ONE } from '../infrastructure/webhook.sql';
import { type AttemptOutcome, AttemptRecorder, type DisabledNotice, type SentAttempt } from './attempt-recorder';

export type { AttemptOutcome, DisabledNotice, SentAttempt } from './attempt-recorder';

// Claims are short transactions; this lock makes the per-endpoint in-flight count exact across replicas.
const CLAIM_LOCK = 7_301_004;
const MAX_ERROR = 500;

export interface RunnerOptions {
  timeoutMs: number;
  random?: () => number;
  // Told after the transaction that disabled a configuration commits (e.g. to email the admins).
  onDisabled?: (notice: DisabledNotice) => Promise<void>;
}

// The outcome of an attempt whose delivery was deleted meanwhile (with its configuration): nothing to record it on.
export class DeliveryGone extends Error {
  constructor(deliveryId: string) {
    super(`delivery ${deliveryId} no longer exists (its configuration was deleted)`);
    this.name = 'DeliveryGone';
  }
}

const systemCtx = (organizationId: string, requestId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId });

// Sends deliveries and records each attempt: claim (lease) in one short transaction, POST outside
// any transaction, record the outcome and the retry decision in another. Time comes from the clock.
export class DeliveryRunner {
  private readonly recorder: AttemptRecorder;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly outbound: OutboundClient,
    private readonly clock: Clock,
    private readonly options: RunnerOptions,
  ) {
    this.recorder = new AttemptRecorder(clock, options.random ?? Math.random);
  }

  // A lease outlives the longest attempt, so a worker that dies mid-send frees its deliveries.
  private leaseUntil(now: Date): Date {
    return new Date(now.getTime() + this.options.timeoutMs + 60_000);
  }

  // Up to `limit` due deliveries, at most `perEndpoint` in flight per configuration.
  async claim(limit: number, perEndpoint: number): Promise<DeliveryJob[]> {
    if (limit <= 0) return [];
    const now = this.clock.now();
    return this.db.asSystem(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK]);
      return tx.query<DeliveryJob>(CLAIM, [now, limit, perEndpoint, this.leaseUntil(now)]);
    });
  }

  // The lease on one delivery inside the caller's tenant transaction (RLS: another organization's
  // delivery is not found); null when it does not exist or an attempt is under way.
  async leaseOne(tx: Tx, deliveryId: string): Promise<DeliveryJob | null> {
    const now = this.clock.now();
    const [job] = await tx.query<DeliveryJob>(LEASE_ONE, [deliveryId, this.leaseUntil(now), now]);
    return job ?? null;
  }

  // One attempt sent and recorded (test action, manual retry); a recording failure is thrown.
  async attempt(job: DeliveryJob): Promise<AttemptOutcome> {
    const [outcome] = await this.recordMany([await this.send(job)], { waitForNotices: true });
    if (outcome instanceof Error) throw outcome;
    return outcome;
  }

  // The POST of one attempt, outside any transaction. Never throws: failures are part of the result.
  async send(job: DeliveryJob): Promise<SentAttempt> {
    const at = this.clock.now();
    const started = process.hrtime.bigint();
    let statusCode: number | null = null;
    let error: string | null = null;
    let secret: string | null;
    try {
      secret = job.secret_sealed ? this.box.open(job.secret_sealed) : null;
    } catch {
      // Never send unsigned what should be signed; the attempt fails and is logged (key rotated?).
      return { job, statusCode: null, error: 'the signing secret cannot be decrypted with the current ENCRYPTION_KEY; set a new secret', durationMs: 0 };
    }
    try {
      const headers = deliveryHeaders({ deliveryId: job.id, kind: job.event, body: job.body, at, secret });
      const response = await this.outbound.request({ url: job.url, method: 'POST', headers, body: job.body, timeoutMs: this.options.timeoutMs });
      statusCode = response.status;
      if (statusCode < 200 || statusCode >= 300)
        error = `HTTP ${statusCode}${response.body.length > 0 ? `: ${response.body.toString('utf8').slice(0, 200)}` : ''}`;
    } catch (caught) {
      error = caught instanceof OutboundError ? `${caught.code}: ${caught.message}` : String((caught as Error).message ?? caught);
    }
    const durationMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
    return { job, statusCode, error: error?.slice(0, MAX_ERROR) ?? null, durationMs };
  }

  // Records finished attempts; the answer is in the same order, an Error where one could not be
  // recorded (its lease then expires and it is sent again). One transaction per organization; if
  // that fails, each attempt of it gets its own, so one bad row does not hold back the others.
  // Notices of disabled configurations (emails) go on in the background unless `waitForNotices`:
  // a slow mail server must not hold the worker's recording, and with it every endpoint's slots.
  // `maybeRecorded`: the attempts failed to be recorded before, perhaps only their COMMIT's answer
  // was lost; an attempt already logged is then not recorded twice.
  // `handOver`: the slots successes free go, in the same transaction, to their endpoints' next due
  // deliveries, leased and told after the commit: a busy endpoint's next send needs no claim round
  // (a claim is a transaction under the claim lock, the longest step of a slot's cycle under load).
  async recordMany(
    sent: SentAttempt[],
    options: { waitForNotices?: boolean; maybeRecorded?: boolean; handOver?: (jobs: DeliveryJob[]) => void } = {},
  ): Promise<(AttemptOutcome | Error)[]> {
    const results = new Map<SentAttempt, AttemptOutcome | Error>();
    for (const [organizationId, items] of groupBy(sent, (item) => item.job.organization_id)) {
      const groups = items.length === 1 ? [items] : [items, ...items.map((item) => [item])];
      for (const group of groups) {
        const notices: DisabledNotice[] = [];
        const requestId = group.length === 1 ? `webhook-delivery:${group[0].job.id}` : `webhook-deliveries:${group.length}`;
        const handedOver: DeliveryJob[] = [];
        try {
          const outcomes = await this.db.inTenant(systemCtx(organizationId, requestId), async (tx) => {
            const freed: string[] = [];
            const recorded = await this.recorder.recordIn(tx, group, (notice) => notices.push(notice), { maybeRecorded: options.maybeRecorded, freed });
            if (options.handOver && freed.length > 0) {
              const now = this.clock.now();
              handedOver.push(...(await tx.query<DeliveryJob>(HAND_OVER, [freed, now, this.leaseUntil(now)])));
            }
            return recorded;
          });
          if (handedOver.length > 0) options.handOver?.(handedOver);
          group.forEach((item, i) => results.set(item, outcomes[i].log_id ? outcomes[i] : new DeliveryGone(item.job.id)));
        } catch (error) {
          if (group.length === 1) results.set(group[0], error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        for (const notice of notices) {
          const told = this.options.onDisabled?.(notice).catch(() => undefined);
          if (options.waitForNotices) await told;
        }
        if (group === items) break;
      }
    }
    return sent.map((item) => results.get(item)!);
  }
}
