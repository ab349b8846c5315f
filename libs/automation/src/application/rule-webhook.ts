import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type OutboundClient, OutboundError } from '@engage/platform';

// A webhook POST of a rule's send_webhook action or a bot flow's webhook node: through the
// platform's SSRF-safe client (https, no private or loopback targets unless allow-listed, DNS
// pinned, bounded time and size), signed when there is a secret (`X-Signature-256: sha256=<hex
// HMAC-SHA256 of the raw body>`), each attempt time-boxed. A network failure, a 429 or a 5xx is
// worth another attempt while the whole stays within the budget (60 s). A rule's deliveries are
// jobs (rule-webhook.job.ts: one attempt each, the next enqueued after its pause), so the rule
// engine never waits for a receiver; a bot's node needs the answer to go on and posts in line.

export interface WebhookTiming {
  attemptTimeoutMs: number;
  // The pauses before the second, third, ... attempts.
  retryDelaysMs: readonly number[];
  budgetMs: number;
}

// Replaceable where a test needs shorter pauses (a module providing this token).
export const RULE_WEBHOOK_TIMING = Symbol('RULE_WEBHOOK_TIMING');

export const WEBHOOK_TIMING: WebhookTiming = { attemptTimeoutMs: 10_000, retryDelaysMs: [1_000, 4_000, 15_000], budgetMs: 60_000 };

export const signatureOf = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export class RuleWebhookFailed extends Error {}

export type AttemptResult = { ok: true; status: number } | { ok: false; retry: boolean; reason: string };

export class RuleWebhook {
  constructor(
    private readonly outbound: OutboundClient,
    readonly timing: WebhookTiming = WEBHOOK_TIMING,
  ) {}

  // One POST, at most attemptTimeoutMs (or `timeoutMs` when shorter): the receiver's 2xx, or the
  // reason it failed and whether another attempt may help.
  async attempt(url: string, body: string, secret: string | undefined, runId: string, timeoutMs?: number): Promise<AttemptResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-automation-run': runId };
    if (secret) headers['x-signature-256'] = signatureOf(secret, body);
    try {
      const response = await this.outbound.request({
        url,
        method: 'POST',
        headers,
        body,
        timeoutMs: Math.min(this.timing.attemptTimeoutMs, timeoutMs ?? Infinity),
      });
      if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
      return { ok: false, retry: response.status === 429 || response.status >= 500, reason: `the receiver answered HTTP ${response.status}` };
    } catch (error) {
      const reason = error instanceof OutboundError ? `${error.code}: ${error.message}` : String((error as Error).message ?? error);
      return { ok: false, retry: !(error instanceof OutboundError && error.blocked), reason };
    }
  }

  // The pause before the attempt after `attempt` (1-based) when one started `elapsedMs` after the
  // first is worth it; undefined when the attempts or the budget are spent.
  nextDelay(attempt: number, elapsedMs: number): number | undefined {
    const delay = this.timing.retryDelaysMs[attempt - 1];
    return delay === undefined || elapsedMs + delay >= this.timing.budgetMs ? undefined : delay;
  }

  // Every attempt in line (a bot's webhook node): the receiver's status and the attempts it took;
  // throws RuleWebhookFailed with the last reason.
  async post(url: string, body: string, secret: string | undefined, runId: string): Promise<{ status: number; attempts: number }> {
    const started = Date.now();
    for (let attempt = 1; ; attempt += 1) {
      const result = await this.attempt(url, body, secret, runId, this.timing.budgetMs - (Date.now() - started));
      if (result.ok) return { status: result.status, attempts: attempt };
      const delay = result.retry ? this.nextDelay(attempt, Date.now() - started) : undefined;
      if (delay === undefined) throw new RuleWebhookFailed(failedAfter(result.reason, attempt));
      await sleep(delay);
    }
  }
}

export const failedAfter = (reason: string, attempts: number) => `${reason} (${attempts} attempt${attempts === 1 ? '' : 's'})`;
