import { callApi } from '../api/functions';
import { fromSupabase } from '../api/errors';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';

export const EVENTS = [
  'message.received',
  'conversation.created',
  'conversation.status.changed',
  'conversation.assigned',
  'conversation.unanswered',
  'conversation.customer_silent',
  'contact.created',
  'contact.updated',
  'deal.created',
  'deal.stage.changed',
  'call.analyzed',
  'broadcast.response',
] as const;
export const TIMERS = ['conversation.unanswered', 'conversation.customer_silent'];
export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'matches',
  'in',
  'not_in',
  'greater_than',
  'less_than',
  'is_set',
  'is_empty',
  'includes_any',
  'includes_all',
] as const;
export const FIELDS = [
  'message.content',
  'message.channel_kind',
  'conversation.status',
  'conversation.channel_kind',
  'conversation.channel_account_id',
  'conversation.assignee_id',
  'contact.tags',
  'contact.custom_fields.',
  'contact.opt_in_status',
  'contact.source',
  'contact.company_id',
  'deal.stage',
  'deal.value',
  'deal.pipeline_id',
  'deal.owner_id',
  'time.weekday',
  'time.in_business_hours',
];

export interface Condition {
  field: string;
  operator: string;
  value?: unknown;
}
export interface Rule {
  id: string;
  name: string;
  description: string;
  event: string;
  event_options: { minutes?: number };
  conditions: { all?: unknown[]; any?: unknown[] };
  actions: Record<string, unknown>[];
  is_active: boolean;
  position: number;
  created_at: string;
}
export interface Run {
  id: string;
  rule_id: string;
  event: string;
  subject_type: string;
  subject_id: string;
  status: string;
  skip_reason: string | null;
  actions: { type: string; status: string; error?: string; result?: unknown }[];
  depth: number;
  started_at: string;
  finished_at: string | null;
}
export interface DryRun {
  matched: boolean;
  conditions: { path: string; field: string; operator: string; value: unknown; actual: unknown; matched: boolean }[];
  actions: { type: string; would: string }[];
}

export const RULES = ['automation_rules'] as const;
const COLUMNS = 'id,name,description,event,event_options,conditions,actions,is_active,position,created_at';

export const listRules = () => rows<Rule>(supabase.from('automation_rules').select(COLUMNS).order('position').order('created_at'));
export const getRule = async (id: string) => (await rows<Rule>(supabase.from('automation_rules').select(COLUMNS).eq('id', id)))[0] ?? null;

export type RuleFields = Pick<Rule, 'name' | 'description' | 'event' | 'event_options' | 'conditions' | 'actions' | 'is_active'>;

export async function saveRule(id: string | null, fields: Partial<RuleFields>): Promise<Rule> {
  const query = id ? supabase.from('automation_rules').update(fields).eq('id', id) : supabase.from('automation_rules').insert(fields);
  const { data, error } = await query.select(COLUMNS).single();
  if (error) throw fromSupabase(error);
  return data as Rule;
}

export async function deleteRule(id: string): Promise<void> {
  const { error } = await supabase.from('automation_rules').delete().eq('id', id);
  if (error) throw fromSupabase(error);
}

// Failures first (the statuses sort delivering (webhooks still being retried, at most a minute),
// failed, partially_failed, running, skipped, succeeded,
// waiting), then the newest.
export const listRuns = (ruleId: string) =>
  rows<Run>(
    supabase
      .from('automation_runs')
      .select('id,rule_id,event,subject_type,subject_id,status,skip_reason,actions,depth,started_at,finished_at')
      .eq('rule_id', ruleId)
      .order('status')
      .order('started_at', { ascending: false })
      .limit(50),
  );

export const dryRun = (ruleId: string, subjectId: string) =>
  callApi<DryRun>(`/functions/v1/automation/rules/${ruleId}/test`, { method: 'POST', body: { subject_id: subjectId } });
