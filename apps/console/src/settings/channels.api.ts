import { callApi } from '../api/functions';

export const CHANNEL_KINDS = ['chat_app', 'messenger', 'instagram', 'email', 'sms'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const KIND_NAMES: Record<string, string> = {
  chat_app: 'Chat app',
  messenger: 'Messenger',
  instagram: 'Instagram',
  email: 'Email',
  sms: 'SMS',
};

export interface ChannelAccount {
  id: string;
  kind: string;
  name: string;
  is_active: boolean;
  external_account_id: string | null;
  created_at: string;
  paused_at: string | null;
  paused_reason: string | null;
}

// The policy in force (docs/messaging.md, "The queue's endpoints").
export interface Pacing {
  gap_seconds: [number, number];
  cold_gap_seconds: [number, number];
  per_hour: number | null;
  per_day: number | null;
  warmup: boolean;
  per_recipient_min_gap_seconds: number;
  per_recipient_per_hour: number;
  quiet_hours: { start: string; end: string } | null;
  auto_pause_after_failures: number;
  receivers_per_call: number;
  per_second: number | null;
}

export interface QueueAccount extends ChannelAccount {
  pacing: Pacing;
  pacing_overrides: Partial<Pacing>;
  paused: boolean;
}

export interface QueueEntry {
  channel_account_id: string;
  kind: string;
  name: string;
  paused: boolean;
  paused_reason: string | null;
  depth: { total: number; by_origin: Record<string, number> };
  next_send_at: string | null;
  eta_last: string | null;
  sent_last_hour: number;
  sent_today: number;
  caps: { per_hour: number | null; per_day: number | null };
}

export interface CreatedChannel {
  channel_account: ChannelAccount;
  inbound_token?: string;
  inbound_path?: string;
}

export const CHANNELS = ['channels'] as const;
const BASE = '/functions/v1/messaging';

export const listChannels = () => callApi<ChannelAccount[]>(`${BASE}/channel-accounts`);
export const getChannel = (id: string) => callApi<QueueAccount>(`${BASE}/channel-accounts/${id}`);
export const createChannel = (body: Record<string, unknown>) => callApi<CreatedChannel>(`${BASE}/channel-accounts`, { method: 'POST', body });
export const changeChannel = (id: string, body: { is_active?: boolean; pacing?: Partial<Pacing> | null }) =>
  callApi<QueueAccount>(`${BASE}/channel-accounts/${id}`, { method: 'PATCH', body });
export const pauseChannel = (id: string, reason: string) =>
  callApi<QueueAccount>(`${BASE}/channel-accounts/${id}/pause`, { method: 'POST', body: reason ? { reason } : {} });
export const resumeChannel = (id: string) => callApi<QueueAccount>(`${BASE}/channel-accounts/${id}/resume`, { method: 'POST', body: {} });
export const testChannel = (id: string) => callApi<{ ok: boolean; error?: string }>(`${BASE}/channel-accounts/${id}/test`, { method: 'POST', body: {} });
export const rotateToken = (id: string) => callApi<CreatedChannel>(`${BASE}/channel-accounts/${id}/rotate-token`, { method: 'POST', body: {} });
export const outboundQueue = async () => (await callApi<{ accounts: QueueEntry[] }>(`${BASE}/outbound-queue`)).accounts;

// The fields each kind takes when it is created (the API checks them; docs/messaging.md).
export const KIND_FIELDS: Record<ChannelKind, { name: string; label: string; type?: string; secret?: boolean }[]> = {
  chat_app: [],
  messenger: [
    { name: 'page_id', label: 'Facebook page id' },
    { name: 'page_access_token', label: 'Page access token', secret: true },
  ],
  instagram: [
    { name: 'instagram_account_id', label: 'Instagram account id' },
    { name: 'page_access_token', label: 'Page access token', secret: true },
  ],
  sms: [
    { name: 'account_sid', label: 'Account SID' },
    { name: 'auth_token', label: 'Auth token', secret: true },
    { name: 'from_number', label: 'Sender number (E.164)' },
  ],
  email: [
    { name: 'address', label: 'Address', type: 'email' },
    { name: 'imap.host', label: 'IMAP host' },
    { name: 'imap.port', label: 'IMAP port', type: 'number' },
    { name: 'imap.user', label: 'IMAP user' },
    { name: 'imap.password', label: 'IMAP password', secret: true },
    { name: 'smtp.host', label: 'SMTP host' },
    { name: 'smtp.port', label: 'SMTP port', type: 'number' },
    { name: 'smtp.user', label: 'SMTP user' },
    { name: 'smtp.password', label: 'SMTP password', secret: true },
  ],
};

// The creating body from the form: dotted names become nested objects (imap.host), ports numbers;
// IMAP and SMTP are reached over TLS (secure) as the API's defaults expect.
export function channelBody(kind: ChannelKind, form: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = { kind, name: String(form.get('name') ?? '') };
  for (const field of KIND_FIELDS[kind]) {
    const raw = String(form.get(field.name) ?? '');
    const value = field.type === 'number' && raw !== '' ? Number(raw) : raw;
    const [outer, inner] = field.name.split('.');
    if (inner) body[outer] = { secure: true, ...(body[outer] as object | undefined), [inner]: value };
    else body[outer] = value;
  }
  return body;
}
