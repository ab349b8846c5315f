import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type OutboundClient, OutboundError } from '@engage/platform';

// A send_webhook action's POST: through the platform's SSRF-safe client (https, no private or
// loopback targets unless allow-listed, DNS pinned, bounded time and size), signed when the action
// has a secret (`X-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`), each attempt
// time-boxed, retried on a network failure, a 429 or a 5xx while the whole stays within 60 s.

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

export class RuleWebhook {
  constructor(
    private readonly outbound: OutboundClient,
    private readonly timing: WebhookTiming = WEBHOOK_TIMING,
  ) {}

  // Answers the receiver's status and the attempts it took; throws RuleWebhookFailed with the last reason.
  async post(url: string, body: string, secret: string | undefined, runId: string): Promise<{ status: number; attempts: number }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-automation-run': runId };
    if (secret) headers['x-signature-256'] = signatureOf(secret, body);
    const started = Date.now();
    let reason = '';
    for (let attempt = 1; ; attempt += 1) {
      const left = this.timing.budgetMs - (Date.now() - started);
      let retry = true;
      try {
        const response = await this.outbound.request({ url, method: 'POST', headers, body, timeoutMs: Math.min(this.timing.attemptTimeoutMs, left) });
        if (response.status >= 200 && response.status < 300) return { status: response.status, attempts: attempt };
        reason = `the receiver answered HTTP ${response.status}`;
        retry = response.status === 429 || response.status >= 500;
      } catch (error) {
        reason = error instanceof OutboundError ? `${error.code}: ${error.message}` : String((error as Error).message ?? error);
        retry = !(error instanceof OutboundError && error.blocked);
      }
      const delay = this.timing.retryDelaysMs[attempt - 1];
      const elapsed = Date.now() - started;
      if (!retry || delay === undefined || elapsed + delay >= this.timing.budgetMs) {
        throw new RuleWebhookFailed(`${reason} (${attempt} attempt${attempt === 1 ? '' : 's'})`);
      }
      await sleep(delay);
    }
  }
}
