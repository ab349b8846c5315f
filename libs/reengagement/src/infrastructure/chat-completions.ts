import type { OutboundClient } from '@engage/platform';

// Where a draft is asked for: the platform's AI (AI_BASE_URL, an operator's address, called
// directly) or the customer's (their key, against their own address through the SSRF-safe client).
export interface AiTarget {
  provider: 'default' | 'custom';
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  // true: a customer-given address, fetched only through the outbound client's checks.
  untrusted: boolean;
}

// The key's check answers the settings request, so it waits less than a draft does.
const CHECK_TIMEOUT_MS = 10_000;

// A failed call. The message names the status or the transport's reason, never the key or the
// provider's body (which can echo part of the key).
export class AiCallFailed extends Error {}

// The OpenAI-compatible chat-completions API (the protocol the calls context's analyser speaks).
export class ChatCompletions {
  constructor(
    private readonly outbound: OutboundClient,
    private readonly timeoutMs: number,
  ) {}

  async complete(target: AiTarget, messages: { role: string; content: string }[]): Promise<unknown> {
    const body = JSON.stringify({ model: target.model, temperature: 0.4, max_tokens: 600, messages });
    const answer = await this.call(target, 'POST', '/chat/completions', body);
    return (answer as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  }

  // The cheapest authenticated call: the model list.
  async checkKey(target: AiTarget): Promise<{ ok: boolean; error?: string }> {
    try {
      await this.call(target, 'GET', '/models', undefined, CHECK_TIMEOUT_MS);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  private async call(target: AiTarget, method: 'GET' | 'POST', path: string, body?: string, timeoutMs = this.timeoutMs): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
    if (body) headers['content-type'] = 'application/json';
    const url = `${target.baseUrl.replace(/\/+$/, '')}${path}`;
    let status: number;
    let text: string;
    try {
      if (target.untrusted) {
        const response = await this.outbound.request({ url, method, headers, body, timeoutMs, maxBodyBytes: 1024 * 1024 });
        status = response.status;
        text = response.body.toString('utf8');
      } else {
        const response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
        status = response.status;
        text = await response.text();
      }
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      throw new AiCallFailed(`the ${target.provider} AI could not be reached: ${reason}`);
    }
    if (status < 200 || status > 299) {
      const why = status === 401 || status === 403 ? ' (key refused)' : status === 429 ? ' (rate limited or out of quota)' : '';
      throw new AiCallFailed(`the ${target.provider} AI answered ${status}${why}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AiCallFailed(`the ${target.provider} AI answered with a body that is not JSON`);
    }
  }
}
