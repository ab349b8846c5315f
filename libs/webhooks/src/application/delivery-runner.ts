import { type Database, type OutboundClient, OutboundError, type SecretBox, type Tx } from '@engage/platform';
import type { Clock, RequestContext } from '@engage/shared-kernel';
import { TEST_EVENT_KIND } from '../domain/event-kinds';
import { classify, DISABLE_AFTER_MS, retryDelayMs } from '../domain/retry-policy';
import { deliveryHeaders } from '../domain/signature';
import {
  CLEAR_FAILING, DISABLE_CONFIGURATION, CLAIM, type DeliveryJob, FINISH_DELIVERY, INSERT_LOG, LEASE_ONE, MARK_FAILING,
} from '../infrastructure/webhook.sql';

// Claims are short transactions; this lock makes the per-endpoint in-flight count exact across replicas.
const CLAIM_LOCK = 7_301_004;
const MAX_ERROR = 500;

export interface AttemptOutcome {
  delivery_id: string;
  log_id: string;
  success: boolean;
  status: 'success' | 'failed' | 'retrying';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempt: number;
  next_attempt_at: string | null;
}

export interface DisabledNotice {
  organizationId: string;
  webhookId: string;
  name: string;
  url: string;
  reason: string;
}

export interface RunnerOptions {
  timeoutMs: number;
  random?: () => number;
  // Told after the transaction that disabled a configuration commits (e.g. to email the admins).
  onDisabled?: (notice: DisabledNotice) => Promise<void>;
}

const systemCtx = (organizationId: string, requestId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId });

// Sends deliveries and records each attempt: claim (lease) in one short transaction, POST outside
// any transaction, record the outcome and the retry decision in another. Time comes from the clock.
export class DeliveryRunner {
  private readonly random: () => number;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly outbound: OutboundClient,
    private readonly clock: Clock,
    private readonly options: RunnerOptions,
  ) {
    this.random = options.random ?? Math.random;
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

  async attempt(job: DeliveryJob): Promise<AttemptOutcome> {
    const at = this.clock.now();
    const started = process.hrtime.bigint();
    let statusCode: number | null = null;
    let error: string | null = null;
    let secret: string | null;
    try {
      secret = job.secret_sealed ? this.box.open(job.secret_sealed) : null;
    } catch {
      // Never send unsigned what should be signed; the attempt fails and is logged (key rotated?).
      return this.record(job, null, 'the signing secret cannot be decrypted with the current ENCRYPTION_KEY; set a new secret', 0);
    }
    const headers = deliveryHeaders({ deliveryId: job.id, kind: job.event, body: job.body, at, secret });
    try {
      const response = await this.outbound.request({ url: job.url, method: 'POST', headers, body: job.body, timeoutMs: this.options.timeoutMs });
      statusCode = response.status;
      if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}${response.body.length > 0 ? `: ${response.body.toString('utf8').slice(0, 200)}` : ''}`;
    } catch (caught) {
      error = caught instanceof OutboundError ? `${caught.code}: ${caught.message}` : String((caught as Error).message ?? caught);
    }
    const durationMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
    return this.record(job, statusCode, error?.slice(0, MAX_ERROR) ?? null, durationMs);
  }

  private async record(job: DeliveryJob, statusCode: number | null, error: string | null, durationMs: number): Promise<AttemptOutcome> {
    let notice: DisabledNotice | undefined;
    const result = await this.recordIn(job, statusCode, error, durationMs, (reason) => {
      notice = { organizationId: job.organization_id, webhookId: job.webhook_id, name: job.webhook_name, url: job.url, reason };
    });
    if (notice && this.options.onDisabled) await this.options.onDisabled(notice).catch(() => undefined);
    return result;
  }

  private recordIn(job: DeliveryJob, statusCode: number | null, error: string | null, durationMs: number, disabledWith: (reason: string) => void): Promise<AttemptOutcome> {
    const now = this.clock.now();
    const outcome = classify(statusCode);
    const affectsConfiguration = job.event !== TEST_EVENT_KIND;
    return this.db.inTenant(systemCtx(job.organization_id, `webhook-delivery:${job.id}`), async (tx) => {
      let status: AttemptOutcome['status'];
      let nextAt: Date | null = null;
      let disabledReason: string | null = null;
      if (outcome.kind === 'success') {
        status = 'success';
        if (affectsConfiguration) await tx.execute(CLEAR_FAILING, [job.webhook_id]);
      } else {
        const delay = outcome.kind === 'failure' && job.automatic ? retryDelayMs(job.attempts, this.random) : null;
        status = delay === null ? 'failed' : 'retrying';
        nextAt = delay === null ? null : new Date(now.getTime() + delay);
        if (affectsConfiguration && outcome.kind === 'gone') disabledReason = `the endpoint answered 410 Gone at ${now.toISOString()}`;
        if (affectsConfiguration && outcome.kind === 'failure') {
          const [streak] = await tx.query<{ failing_since: Date }>(MARK_FAILING, [job.webhook_id, now]);
          const since = streak ? new Date(streak.failing_since) : now;
          if (now.getTime() - since.getTime() >= DISABLE_AFTER_MS) disabledReason = `failing continuously since ${since.toISOString()} (5 days)`;
        }
      }
      const disabled = disabledReason !== null && (await tx.query(DISABLE_CONFIGURATION, [job.webhook_id, disabledReason, now])).length > 0;
      if (disabled) {
        disabledWith(disabledReason!);
        status = 'failed';
        nextAt = null;
      }
      await tx.execute(FINISH_DELIVERY, [job.id, status, nextAt, now]);
      const [log] = await tx.query<{ id: string }>(INSERT_LOG, [job.webhook_id, job.id, job.event, status, statusCode, error, durationMs, job.attempts, now]);
      // The notice that the configuration was disabled, logged just after the attempt that caused it.
      if (disabled) await tx.query(INSERT_LOG, [job.webhook_id, job.id, job.event, 'failed', statusCode, `webhook disabled: ${disabledReason}`, 0, job.attempts, new Date(now.getTime() + 1)]);
      return {
        delivery_id: job.id,
        log_id: log.id,
        success: status === 'success',
        status,
        status_code: statusCode,
        duration_ms: durationMs,
        error,
        attempt: job.attempts,
        next_attempt_at: nextAt?.toISOString() ?? null,
      };
    });
  }
}
