import { callApi } from '../api/functions';
import { fromSupabase } from '../api/errors';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';

export interface WebhookConfiguration {
  id: string;
  name: string;
  url: string;
  events: string[];
  secret: string | null;
  is_active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
}

export interface WebhookLog {
  id: string;
  webhook_id: string;
  delivery_id: string | null;
  event: string;
  status: 'success' | 'failed' | 'retrying';
  response_code: number | null;
  error_message: string | null;
  duration_ms: number | null;
  attempt: number | null;
  created_at: string;
}

// The answer of the test action and of a manual retry (docs/webhooks.md, "Actions").
export interface AttemptOutcome {
  delivery_id: string;
  log_id: string;
  success: boolean;
  status: string;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
}

// The webhook kinds of §6, as the API accepts them in `events` (it refuses any other with
// webhook.unknown_events).
export const WEBHOOK_KINDS = [
  'contact.created',
  'contact.updated',
  'contact.assigned',
  'deal.created',
  'deal.updated',
  'deal.stage.changed',
  'deal.assigned',
  'conversation.created',
  'conversation.assigned',
  'conversation.status.changed',
  'message.received',
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'broadcast.response',
  'zoom.recording.completed',
] as const;

export const WEBHOOKS = ['webhook_configurations'] as const;

const COLUMNS = 'id,name,url,events,secret,is_active,disabled_reason,failing_since,created_at';

export const listWebhooks = () => rows<WebhookConfiguration>(supabase.from('webhook_configurations').select(COLUMNS).order('created_at', { ascending: false }));

export const getWebhook = async (id: string) =>
  (await rows<WebhookConfiguration>(supabase.from('webhook_configurations').select(COLUMNS).eq('id', id)))[0] ?? null;

// The creating answer holds a generated secret in full, this once.
export async function createWebhook(fields: { name: string; url: string; events: string[] }): Promise<WebhookConfiguration> {
  const { data, error } = await supabase.from('webhook_configurations').insert(fields).select(COLUMNS).single();
  if (error) throw fromSupabase(error);
  return data as WebhookConfiguration;
}

export async function setWebhookActive(id: string, isActive: boolean): Promise<void> {
  const { error } = await supabase.from('webhook_configurations').update({ is_active: isActive }).eq('id', id);
  if (error) throw fromSupabase(error);
}

export async function deleteWebhook(id: string): Promise<void> {
  const { error } = await supabase.from('webhook_configurations').delete().eq('id', id);
  if (error) throw fromSupabase(error);
}

export const sendTest = (id: string) => callApi<AttemptOutcome>(`/functions/v1/webhooks/${id}/test`, { method: 'POST' });

export const retryLog = (logId: string) => callApi<AttemptOutcome>(`/functions/v1/webhooks/logs/${logId}/retry`, { method: 'POST' });

export interface LogFilter {
  status: '' | WebhookLog['status'];
  from: string;
  to: string;
}

export const LOG_PAGE = 50;

// The newest attempts first, filtered by status and by day (from and to are dates, both inclusive).
export function listLogs(webhookId: string, filter: LogFilter): Promise<WebhookLog[]> {
  let query = supabase
    .from('webhook_logs')
    .select('id,webhook_id,delivery_id,event,status,response_code,error_message,duration_ms,attempt,created_at')
    .eq('webhook_id', webhookId);
  if (filter.status) query = query.eq('status', filter.status);
  if (filter.from) query = query.gte('created_at', new Date(`${filter.from}T00:00:00`).toISOString());
  if (filter.to) query = query.lt('created_at', new Date(new Date(`${filter.to}T00:00:00`).getTime() + 86_400_000).toISOString());
  return rows<WebhookLog>(query.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(LOG_PAGE));
}

export const describeOutcome = (outcome: AttemptOutcome): string =>
  outcome.success
    ? `Delivered: HTTP ${outcome.status_code} in ${outcome.duration_ms} ms.`
    : `Not delivered: ${outcome.error ?? `HTTP ${outcome.status_code}`}${outcome.status === 'retrying' ? ' (it will be retried)' : ''}.`;
