import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A Meta webhook sender: posts a body to the app over HTTP, signed with the app secret as Meta does
// (or unsigned, or with another secret), and can post the same bytes again (a replay).
export function metaSender(baseUrl: string, appSecret: string) {
  const sign = (raw: string, secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  return async (body: unknown, how: 'signed' | 'unsigned' | 'wrong_secret' = 'signed', raw = JSON.stringify(body)) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (how !== 'unsigned') headers['x-hub-signature-256'] = sign(raw, how === 'signed' ? appSecret : `${appSecret}-not`);
    const res = await fetch(`${baseUrl}/functions/v1/meta-webhook`, { method: 'POST', headers, body: raw });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

// Meta's webhook body for one messaging event of a page (object "page") or Instagram account.
export const metaBody = (object: 'page' | 'instagram', accountId: string, messaging: object[]) => ({
  object,
  entry: [{ id: accountId, time: Date.now(), messaging }],
});

export interface GraphCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

// The Graph API on 127.0.0.1 (Send API, token check, user profiles): records each request and
// answers as Graph does, with a message id or a profile, or with the error queued by `failNext`.
export class GraphApiFake {
  readonly calls: GraphCall[] = [];
  private server: Server | undefined;
  private failures: { status: number; error: Record<string, unknown> }[] = [];
  private readonly profiles = new Map<string, Record<string, unknown>>();
  private readonly delays: number[] = [];
  private counter = 0;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v23.0`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  failNext(status: number, error: Record<string, unknown>): void {
    this.failures.push({ status, error });
  }

  // GET /{page-scoped id}?fields=... answers this profile (the fields asked for); unknown ids get Graph's error.
  setProfile(userId: string, profile: Record<string, unknown>): void {
    this.profiles.set(userId, profile);
  }

  // The next request is answered only after `ms` (a slow Graph).
  delayNext(ms: number): void {
    this.delays.push(ms);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const delay = this.delays.shift();
    if (req.method === 'GET') return this.get(req, res, delay);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'body is not JSON', code: 100 } }));
      return;
    }
    this.calls.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
    const failure = this.failures.shift();
    if (failure) {
      res.writeHead(failure.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: failure.error }));
      return;
    }
    const recipient = (body.recipient as { id?: string } | undefined)?.id;
    if (!/\/messages$/.test(req.url ?? '') || !recipient || (!body.message && !body.sender_action)) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: '(#100) The parameter recipient is required', code: 100 } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ recipient_id: recipient, message_id: `m_fake_${++this.counter}` }));
  }

  // GET /{id}?fields=id (the token check: a known token may act for any id here), or a user profile.
  private async get(req: IncomingMessage, res: ServerResponse, delay: number | undefined): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://graph.local');
    const id = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const fields = (url.searchParams.get('fields') ?? '').split(',');
    this.calls.push({ method: 'GET', path: req.url ?? '', authorization: req.headers.authorization, body: {} });
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const failure = this.failures.shift();
    if (failure) return json(res, failure.status, { error: failure.error });
    if (fields.join(',') === 'id') return json(res, 200, { id });
    const profile = this.profiles.get(id);
    if (!profile) return json(res, 400, { error: { message: `(#100) Object with ID '${id}' does not exist`, type: 'GraphMethodException', code: 100 } });
    return json(res, 200, { id, ...Object.fromEntries(fields.filter((f) => f in profile).map((f) => [f, profile[f]])) });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
