import { ProviderError, type ProviderResult } from '../../outbound/provider-result';

// Graph's throttling answers (HTTP 400 or 403, not 429): application (4), user (17) and page (32)
// request limits, the Send API's rate limit (613), and the Messenger platform's page-level limits
// (80001, 80006).
const GRAPH_THROTTLING_CODES = new Set([4, 17, 32, 613, 80001, 80006]);

// One message of the Messenger Platform's (and Instagram messaging's) Send API.
export interface GraphMessage {
  recipient: { id: string };
  messaging_type: 'RESPONSE' | 'MESSAGE_TAG';
  tag?: 'HUMAN_AGENT';
  message: { text: string } | { attachment: { type: 'image' | 'video' | 'file'; payload: { url: string; is_reusable: boolean } } };
}

// POST {META_GRAPH_URL}/{page or Instagram account id}/messages with the page access token (as a
// bearer header, so it stays out of URLs and logs). Errors carry Graph's own message.
export class GraphSendApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  // Whether the token can act for the account: GET /{id}?fields=id answers the id itself.
  async check(accountId: string, accessToken: string): Promise<{ ok: boolean; error?: string }> {
    try {
      const res = await fetch(`${this.baseUrl.replace(/\/$/, '')}/${encodeURIComponent(accountId)}?fields=id`, {
        headers: { authorization: `Bearer ${accessToken}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = (await res.json().catch(() => ({}))) as { id?: unknown; error?: { message?: unknown } };
      if (res.ok && String(body.id) === accountId) return { ok: true };
      return { ok: false, error: typeof body.error?.message === 'string' ? body.error.message.slice(0, 500) : `Graph API answered HTTP ${res.status}` };
    } catch (error) {
      return { ok: false, error: `Graph API unreachable: ${(error as Error).message}` };
    }
  }

  async send(accountId: string, accessToken: string, message: GraphMessage): Promise<ProviderResult> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl.replace(/\/$/, '')}/${encodeURIComponent(accountId)}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError') throw new ProviderError(`Graph API did not answer within ${this.timeoutMs} ms`, null);
      throw new ProviderError(`Graph API unreachable: ${e.cause?.code ?? e.message}`, null);
    }
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: judged by the status alone.
    }
    const error = body.error as { message?: unknown; code?: unknown } | undefined;
    if (!res.ok || error) {
      const reason = typeof error?.message === 'string' ? error.message.slice(0, 500) : `HTTP ${res.status}`;
      const rateLimited = res.status === 429 || GRAPH_THROTTLING_CODES.has(Number(error?.code));
      throw new ProviderError(`Graph API error (${res.status}${error?.code !== undefined ? `, code ${String(error.code)}` : ''}): ${reason}`, res.status, {
        rateLimited,
      });
    }
    const messageId = typeof body.message_id === 'string' ? body.message_id : null;
    if (!messageId) throw new ProviderError('Graph API answered without a message_id', res.status);
    return { status: true, message: 'Message sent', externalId: messageId, raw: body };
  }
}
