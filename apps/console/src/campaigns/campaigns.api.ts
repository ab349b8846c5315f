import { apiErrorFrom, fromSupabase } from '../api/errors';
import { callApi } from '../api/functions';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';

export interface Segment {
  id: string;
  name: string;
  filter: string;
  created_at: string;
}
export interface AudiencePreview {
  count: number;
  reachable: number;
  skipped: { no_opt_in: number; no_phone: number; duplicate_phone: number };
  sample: { id: string; first_name: string | null; last_name: string | null; phone: string }[];
}
export interface Broadcast {
  id: string;
  name: string;
  status: 'draft' | 'scheduled' | 'sending' | 'paused' | 'completed' | 'cancelled';
  channel_account_id: string;
  channel_kind: 'chat_app' | 'sms';
  audience: Record<string, unknown>;
  content: { text: string; media_url?: string | null };
  scheduled_at?: string | null;
  counts: Record<string, number>;
  created_at: string;
}
export interface Report {
  counts: Record<string, number>;
  delivery_rate: number | null;
  read_rate: number | null;
  reply_rate?: number | null;
  failures_by_reason: { reason: string; count: number }[];
}
export interface ContentPreview {
  text: string;
  encoding?: 'GSM-7' | 'UCS-2';
  segments?: number;
}

export const SEGMENTS = ['segments'] as const;
export const BROADCASTS = ['broadcasts'] as const;
const BASE = '/functions/v1/campaigns';

export const listSegments = () => rows<Segment>(supabase.from('segments').select('id,name,filter,created_at').order('created_at', { ascending: false }));
export async function createSegment(fields: { name: string; filter: string }): Promise<Segment> {
  const { data, error } = await supabase.from('segments').insert(fields).select('id,name,filter,created_at').single();
  if (error) throw fromSupabase(error);
  return data as Segment;
}
export const previewAudience = (audience: Record<string, unknown>) =>
  callApi<AudiencePreview>(`${BASE}/audience/preview`, { method: 'POST', body: { audience } });
export const previewContent = (body: { channel_account_id: string; text: string }) =>
  callApi<ContentPreview>(`${BASE}/content/preview`, { method: 'POST', body });

export const listBroadcasts = async () => (await callApi<{ broadcasts: Broadcast[] }>(`${BASE}/broadcasts?limit=100`)).broadcasts;
export const getBroadcast = (id: string) => callApi<Broadcast>(`${BASE}/broadcasts/${id}`);
export const createBroadcast = (body: {
  name: string;
  channel_account_id: string;
  audience: Record<string, unknown>;
  content: { text: string; media_url?: string; media_kind?: string };
  reply_window_hours?: number;
  auto_pause_after_failures?: number;
}) => callApi<Broadcast>(`${BASE}/broadcasts`, { method: 'POST', body });
export const act = (id: string, action: 'start' | 'pause' | 'resume' | 'cancel' | 'schedule', body: Record<string, unknown> = {}) =>
  callApi<Broadcast>(`${BASE}/broadcasts/${id}/${action}`, { method: 'POST', body });
export const getReport = (id: string) => callApi<Report>(`${BASE}/broadcasts/${id}/report`);

// The recipients as CSV (the report's text/csv answer), saved by the browser.
export async function downloadRecipients(id: string, name: string): Promise<void> {
  const token = (await supabase.auth.getSession()).data.session?.access_token;
  const response = await fetch(`${BASE}/broadcasts/${id}/report`, { headers: { accept: 'text/csv', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  if (!response.ok) throw apiErrorFrom(response.status, await response.json().catch(() => ({})));
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name.replace(/[^\w.-]+/g, '-')}-recipients.csv`;
  link.click();
  URL.revokeObjectURL(url);
}
