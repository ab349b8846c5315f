import { ProviderError, type ProviderResult } from '../../outbound/provider-result';
import type { SmsCredentials, SmsMessage, SmsProvider } from './sms-provider.port';

type ProviderBody = { sid?: unknown; status?: unknown; code?: unknown; message?: unknown };

// The Twilio-style Messages API over HTTP: POST {SMS_API_URL}/2010-04-01/Accounts/{sid}/Messages.json,
// form-encoded, with basic auth sid:token (never in the address). Errors carry the provider's code and words.
export class SmsMessagesApi implements SmsProvider {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  private accountUrl(sid: string): string {
    return `${this.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(sid)}`;
  }

  private auth({ accountSid, authToken }: SmsCredentials): string {
    return `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  }

  // GET the account resource: the credentials are good when it answers the account itself.
  async check(credentials: SmsCredentials): Promise<{ ok: boolean; error?: string }> {
    try {
      const res = await fetch(`${this.accountUrl(credentials.accountSid)}.json`, {
        headers: { authorization: this.auth(credentials), accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = (await res.json().catch(() => ({}))) as ProviderBody;
      if (res.ok && body.sid === credentials.accountSid) return { ok: true };
      return { ok: false, error: reason(res.status, body) };
    } catch (error) {
      return { ok: false, error: unreachable(error, this.timeoutMs) };
    }
  }

  async send(credentials: SmsCredentials, message: SmsMessage): Promise<ProviderResult> {
    let res: Response;
    try {
      res = await fetch(`${this.accountUrl(credentials.accountSid)}/Messages.json`, {
        method: 'POST',
        headers: { authorization: this.auth(credentials), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ To: message.to, From: message.from, Body: message.body, StatusCallback: message.statusCallback }).toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ProviderError(unreachable(error, this.timeoutMs), null);
    }
    const body = (await res.json().catch(() => ({}))) as ProviderBody & Record<string, unknown>;
    if (!res.ok)
      throw new ProviderError(reason(res.status, body), res.status, { rateLimited: res.status === 429 || SMS_THROTTLING_CODES.has(Number(body.code)) });
    if (typeof body.sid !== 'string' || body.sid.length === 0) throw new ProviderError('SMS provider answered without a message sid', res.status);
    return { status: body.status ?? null, message: 'Message queued', externalId: body.sid, raw: body };
  }
}

// The provider's throttling codes: too many requests (20429), the sending number's rate (14107),
// the account's or channel's message rate (63017, 63018).
const SMS_THROTTLING_CODES = new Set([20429, 14107, 63017, 63018]);

const reason = (status: number, body: ProviderBody): string =>
  `SMS provider error (${status}${body.code !== undefined ? `, code ${String(body.code)}` : ''}): ` +
  (typeof body.message === 'string' ? body.message.slice(0, 500) : `HTTP ${status}`);

function unreachable(error: unknown, timeoutMs: number): string {
  const e = error as Error & { cause?: { code?: string } };
  if (e.name === 'TimeoutError') return `SMS provider did not answer within ${timeoutMs} ms`;
  return `SMS provider unreachable: ${e.cause?.code ?? e.message}`;
}
