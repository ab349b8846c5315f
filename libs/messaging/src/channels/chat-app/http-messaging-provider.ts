import type { ProviderBody } from './provider-calls';
import { type MessagingProvider } from './messaging-provider.port';
import { ProviderError, type ProviderResult } from '../../outbound/provider-result';

const MAX_ERROR_TEXT = 300;

// §4.2 over HTTP: POST {baseUrl}/<organizationId>/send with the organization's key in `appapikey`.
export class HttpMessagingProvider implements MessagingProvider {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async send(organizationId: string, apiKey: string, body: ProviderBody): Promise<ProviderResult> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(organizationId)}/send`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { appapikey: apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'TimeoutError' || name === 'AbortError') throw new ProviderError(`Provider did not answer within ${this.timeoutMs} ms`, null);
      throw new ProviderError(`Provider unreachable: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`, null);
    }
    const text = await response.text().catch(() => '');
    const json = parseObject(text);
    if (!response.ok) {
      const said = json ? (json.message ?? json.error) : text;
      const detail = typeof said === 'string' && said.trim() !== '' ? said.trim().slice(0, MAX_ERROR_TEXT) : `HTTP ${response.status}`;
      throw new ProviderError(`Provider error (${response.status}): ${detail}`, response.status);
    }
    if (!json) throw new ProviderError(`Provider answered ${response.status} without a JSON object`, response.status);
    // Some providers report failure in a 200 body.
    if (json.status === false || json.status === 'error' || json.success === false) {
      const said = typeof json.message === 'string' ? json.message.slice(0, MAX_ERROR_TEXT) : 'the provider refused the message';
      throw new ProviderError(`Provider error: ${said}`, response.status);
    }
    return { status: json.status ?? null, message: json.message ?? null, externalId: externalIdOf(json), raw: json };
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

// The provider's message id: external_id, else messageId / message_id / id (as a string).
function externalIdOf(json: Record<string, unknown>): string | null {
  for (const key of ['external_id', 'messageId', 'message_id', 'id']) {
    const value = json[key];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') return String(value).slice(0, 200);
  }
  return null;
}
