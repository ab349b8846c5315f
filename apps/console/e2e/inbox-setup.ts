import { execFileSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

// What the inbox tests do outside the browser, through the public API as a provider or an
// integrator would: channels, inbound webhooks (chat app, signed Messenger), status callbacks.
const root = join(__dirname, '..', '..', '..');
export const base = () => process.env.CONSOLE_BASE_URL!;

export interface Owner {
  token: string;
  userId: string;
  organizationId: string;
}

async function call<T>(path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  const response = await fetch(`${base()}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'POST'} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function signInOwner(): Promise<Owner> {
  const session = await call<{ access_token: string; user: { id: string } }>('/auth/v1/token?grant_type=password', {
    body: { email: process.env.CONSOLE_OWNER_EMAIL, password: process.env.CONSOLE_OWNER_PASSWORD },
  });
  const [profile] = await call<{ organization_id: string }[]>(`/rest/v1/profiles?id=eq.${session.user.id}&select=organization_id`, {
    token: session.access_token,
  });
  return { token: session.access_token, userId: session.user.id, organizationId: profile.organization_id };
}

// The chat-app provider key (the sandbox provider only checks that one is sent), set with the admin CLI.
export function setProviderKey(organizationId: string): void {
  execFileSync(
    process.execPath,
    [join(root, 'dist', 'apps', 'api', 'admin.js'), 'set-org-setting', '--org', organizationId, '--key', 'appgain_api_key', '--value', 'sandbox-key'],
    { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: process.env.CONSOLE_DATA_DIR, LOG_LEVEL: 'warn' }, encoding: 'utf8' },
  );
}

export async function createChannel(owner: Owner, body: Record<string, unknown>): Promise<{ id: string; token?: string }> {
  const created = await call<{ channel_account: { id: string }; inbound_token?: string }>('/functions/v1/messaging/channel-accounts', {
    token: owner.token,
    body,
  });
  return { id: created.channel_account.id, token: created.inbound_token };
}

export const chatAppInbound = (channel: { id: string; token?: string }, body: Record<string, unknown>) =>
  call(`/functions/v1/chat-lite-webhook/${channel.id}`, { body, headers: { 'x-channel-token': channel.token! } });

// A Messenger message from customer `psid` to the page, signed as Meta signs it, with the customer's own time.
export async function messengerInbound(pageId: string, psid: string, text: string, timestamp: number): Promise<void> {
  const body = JSON.stringify({
    object: 'page',
    entry: [
      {
        id: pageId,
        time: Date.now(),
        messaging: [{ sender: { id: psid }, recipient: { id: pageId }, timestamp, message: { mid: `m_${randomBytes(8).toString('hex')}`, text } }],
      },
    ],
  });
  const signature = `sha256=${createHmac('sha256', process.env.CONSOLE_META_APP_SECRET!).update(body).digest('hex')}`;
  await call('/functions/v1/meta-webhook', { body, headers: { 'x-hub-signature-256': signature } });
}

export interface ApiConversation {
  id: string;
  contact_id: string;
  channel_account_id: string;
  channel_kind: string;
  messages: { id: string; direction: string; status: string; content: string; external_id: string | null }[];
}

export const conversations = async (owner: Owner, query = '') =>
  (await call<{ conversations: ApiConversation[] }>(`/functions/v1/messaging/conversations?limit=200${query}`, { token: owner.token })).conversations;
export const conversation = (owner: Owner, id: string) => call<ApiConversation>(`/functions/v1/messaging/conversations/${id}`, { token: owner.token });

export const renameContact = (owner: Owner, id: string, firstName: string) =>
  call(`/rest/v1/contacts?id=eq.${id}`, { method: 'PATCH', token: owner.token, body: { first_name: firstName, last_name: null } });

// Waits until `check` returns a value (the worker stores inbound events in the background).
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// A picture served by the api itself (the local object storage's media route, same origin as the
// console, so its CSP lets it show): a small PNG written where the media store keeps files.
export function storedPicture(organizationId: string): string {
  const png = solidPng(96, 64, [31, 95, 191]);
  const name = `${createHash('sha256').update(png).digest('hex')}.png`;
  const dir = join(process.env.CONSOLE_DATA_DIR!, 'cdn', 'media', organizationId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), png);
  return `${base()}/functions/v1/messaging/media/${organizationId}/${name}`;
}

function solidPng(width: number, height: number, [r, g, b]: number[]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
