import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ProviderBody } from './provider-calls';
import { type MessagingProvider } from './messaging-provider.port';
import { ProviderError, type ProviderResult } from '../../outbound/provider-result';

const MAX_ERROR_TEXT = 300;

// §4.2 over HTTP: POST {baseUrl}/<organizationId>/send with the organization's key in `appapikey`.
// On node's own client with kept-alive connections (the paced queue makes hundreds of calls a
// second; fetch's streams cost several times the CPU of a call).
export class HttpMessagingProvider implements MessagingProvider {
  private readonly agent: HttpAgent;

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.agent = baseUrl.startsWith('https:') ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  async send(organizationId: string, apiKey: string, body: ProviderBody): Promise<ProviderResult> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(organizationId)}/send`;
    let response: { status: number; ok: boolean };
    let text: string;
    try {
      ({ response, text } = await post(url, this.agent, { appapikey: apiKey }, JSON.stringify(body), this.timeoutMs));
    } catch (error) {
      if (error instanceof TimedOut) throw new ProviderError(`Provider did not answer within ${this.timeoutMs} ms`, null);
      throw new ProviderError(`Provider unreachable: ${(error as { code?: string }).code ?? (error as Error).message}`, null);
    }
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

class TimedOut extends Error {}

// One JSON POST: the status and the body's text; TimedOut when the whole exchange takes longer than
// `timeoutMs`. A redirect is answered as it is (a 3xx is not ok).
function post(url: string, agent: HttpAgent, headers: Record<string, string>, body: string, timeoutMs: number) {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<{ response: { status: number; ok: boolean }; text: string }>((resolve, reject) => {
    const request = send(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          resolve({ response: { status, ok: status >= 200 && status < 300 }, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(() => request.destroy(new TimedOut()), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
