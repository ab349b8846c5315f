import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SmsApiCall {
  method: string;
  path: string;
  authorization: string | undefined;
  form: Record<string, string>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const newAccountSid = () => `AC${hex(16)}`;
export const newAuthToken = () => hex(16);

// A Twilio-style Messages API on 127.0.0.1: accounts it knows (sid and auth token), basic auth
// checked as the provider does, messages created with an SM sid, errors in the provider's shape
// ({code, message, status}). Like the provider, it posts signed status callbacks to the
// StatusCallback address a message was sent with (`publicBase` there is rewritten to `appBase`,
// the address the app really listens on, as a reverse proxy would).
export class SmsApiFake {
  readonly calls: SmsApiCall[] = [];
  readonly accounts = new Map<string, string>();
  private readonly callbacks = new Map<string, { url: string; sid: string }>();
  private failures: { status: number; code: number; message: string }[] = [];
  private server: Server | undefined;
  // Runs while a message is being created (before the answer): what the app had stored by then.
  onMessage: ((form: Record<string, string>) => Promise<void>) | undefined;
  url = '';

  constructor(
    private readonly publicBase = '',
    private appBase = '',
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res).catch((e: Error) => res.writeHead(500).end(e.message)));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  listenAppAt(appBase: string): void {
    this.appBase = appBase;
  }

  account(): { sid: string; token: string } {
    const sid = newAccountSid();
    const token = newAuthToken();
    this.accounts.set(sid, token);
    return { sid, token };
  }

  failNext(status: number, code: number, message: string): void {
    this.failures.push({ status, code, message });
  }

  // The provider's status callback for a message it created: signed with the account's token.
  async status(messageSid: string, params: Record<string, string>, how: 'signed' | 'unsigned' | 'wrong_token' = 'signed') {
    const target = this.callbacks.get(messageSid);
    if (!target) throw new Error(`no message ${messageSid}`);
    const form = { MessageSid: messageSid, SmsSid: messageSid, AccountSid: target.sid, ...params };
    const token = how === 'wrong_token' ? newAuthToken() : this.accounts.get(target.sid)!;
    return postSigned(target.url.replace(this.publicBase, this.appBase), target.url, form, how === 'unsigned' ? null : token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const path = req.url ?? '';
    this.calls.push({ method: req.method ?? '', path, authorization: req.headers.authorization, form });
    const answer = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const match = /^\/2010-04-01\/Accounts\/([^/]+?)(\/Messages)?\.json$/.exec(path);
    if (!match) return void answer(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    const [, sid, messages] = match;
    const [user, pass] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    if (user !== sid || !this.accounts.has(sid) || this.accounts.get(sid) !== pass) {
      return void answer(401, { code: 20003, message: 'Authenticate', status: 401 });
    }
    if (!messages && req.method === 'GET') return void answer(200, { sid, friendly_name: 'Test account', status: 'active' });
    if (!messages || req.method !== 'POST') return void answer(405, { code: 20004, message: 'Method not allowed', status: 405 });
    const failure = this.failures.shift();
    if (failure) return void answer(failure.status, { ...failure, more_info: `https://www.twilio.com/docs/errors/${failure.code}` });
    if (!/^\+[1-9]\d{6,14}$/.test(form.To ?? '')) {
      return void answer(400, { code: 21211, message: `The 'To' number ${form.To} is not a valid phone number.`, status: 400 });
    }
    if (!form.From || !form.Body) return void answer(400, { code: 21603, message: "A 'From' phone number and a 'Body' are required.", status: 400 });
    await this.onMessage?.(form);
    const messageSid = `SM${hex(16)}`;
    if (form.StatusCallback) this.callbacks.set(messageSid, { url: form.StatusCallback, sid });
    answer(201, { sid: messageSid, account_sid: sid, to: form.To, from: form.From, body: form.Body, status: 'queued', num_segments: '1' });
  }
}

// The provider's reference algorithm, written apart from the app's: the URL, then each parameter
// name and value in the order of the names, HMAC-SHA1 with the auth token, base64.
export const twilioSignature = (url: string, form: Record<string, string>, token: string) =>
  createHmac('sha1', token)
    .update(
      Object.keys(form)
        .sort()
        .reduce((acc, name) => acc + name + form[name], url),
    )
    .digest('base64');

// A signed form POST as the provider sends it: the signature is over `signedUrl` (the public
// address), the request goes to `url`. A null token sends no signature.
export async function postSigned(url: string, signedUrl: string, form: Record<string, string>, token: string | null, tamper?: Record<string, string>) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (token !== null) headers['x-twilio-signature'] = twilioSignature(signedUrl, form, token);
  const res = await fetch(url, { method: 'POST', headers, body: new URLSearchParams({ ...form, ...tamper }).toString() });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}
