import { ProviderError } from '../application/providers';

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

// One request to an OpenAI-compatible API: a network failure, a timeout, 429 or a 5xx is
// retryable; any other non-2xx is not. The key is sent, never put in an error message.
export async function providerRequest(url: string, init: { apiKey?: string; body: FormData | string; timeoutMs: number; what: string }): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`;
  if (typeof init.body === 'string') headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body: init.body, signal: AbortSignal.timeout(init.timeoutMs), redirect: 'error' });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${init.timeoutMs} ms` : (error as Error).message;
    throw new ProviderError(`${init.what}: ${reason}`, true);
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    const retryable = response.status >= 500 || RETRYABLE_STATUSES.has(response.status);
    throw new ProviderError(`${init.what} answered ${response.status}: ${errorText(text)}`, retryable);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderError(`${init.what} answered with a body that is not JSON`, true);
  }
}

// The provider's own error message when it sends one ({error: {message}}), cut short.
function errorText(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.slice(0, 300) || '(empty body)';
}
