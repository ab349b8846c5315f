import { callApi } from '../api/functions';
import { ApiError, fromSupabase } from '../api/errors';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';

// Bot flows and their sessions (docs/automation.md, "Bot flows"): flows through /rest/v1 (OWNER and
// ADMIN write), publishing and stopping through /functions/v1/automation.
export const NODE_TYPES = ['message', 'ask', 'branch', 'set_field', 'add_tags', 'webhook', 'handoff', 'end'] as const;
export type NodeType = (typeof NODE_TYPES)[number];
export const VALIDATIONS = ['text', 'number', 'email', 'phone', 'choice'] as const;

export interface Choice {
  label: string;
  value?: string;
  next?: string;
}
export interface BranchCase {
  conditions: unknown;
  next?: string;
}
// A node as the API stores it: `id`, `type` and the type's fields (unknown keys are refused).
export interface FlowNode {
  id: string;
  type: NodeType;
  [field: string]: unknown;
}
export interface Trigger {
  type: 'new_conversation' | 'any_message' | 'keyword';
  keywords?: string[];
  match?: 'equals' | 'contains' | 'starts_with';
}
export interface FlowSettings {
  expire_minutes?: number;
  finish_keywords?: string[];
  unknown_reply?: string | null;
}
export interface BotFlow {
  id: string;
  name: string;
  channel_account_ids: string[];
  trigger: Trigger;
  definition: { start: string; nodes: FlowNode[] };
  is_active: boolean;
  settings: FlowSettings;
  published_version: number | null;
  published_at: string | null;
  updated_at: string;
}
export type FlowFields = Pick<BotFlow, 'name' | 'channel_account_ids' | 'trigger' | 'definition' | 'is_active' | 'settings'>;

export interface BotSession {
  id: string;
  conversation_id: string;
  contact_id: string;
  bot_flow_id: string;
  version: number;
  status: string;
  end_reason: string | null;
  current_node: string | null;
  started_at: string;
  updated_at: string;
}

export const FLOWS = ['bot_flows'] as const;
const COLUMNS = 'id,name,channel_account_ids,trigger,definition,is_active,settings,published_version,published_at,updated_at';

export const listFlows = () => rows<BotFlow>(supabase.from('bot_flows').select(COLUMNS).order('created_at'));
export const getFlow = async (id: string) => (await rows<BotFlow>(supabase.from('bot_flows').select(COLUMNS).eq('id', id)))[0] ?? null;

export async function saveFlow(id: string | null, fields: Partial<FlowFields>): Promise<BotFlow> {
  const query = id ? supabase.from('bot_flows').update(fields).eq('id', id) : supabase.from('bot_flows').insert(fields);
  const { data, error } = await query.select(COLUMNS).single();
  if (error) throw fromSupabase(error);
  return data as BotFlow;
}

export async function deleteFlow(id: string): Promise<void> {
  const { error } = await supabase.from('bot_flows').delete().eq('id', id);
  if (error) throw fromSupabase(error);
}

export const publishFlow = (id: string) =>
  callApi<{ bot_flow_id: string; version: number; published_at: string }>(`/functions/v1/automation/bots/${id}/publish`, { method: 'POST', body: {} });

export const listSessions = (flowId: string) =>
  rows<BotSession>(
    supabase
      .from('bot_sessions')
      .select('id,conversation_id,contact_id,bot_flow_id,version,status,end_reason,current_node,started_at,updated_at')
      .eq('bot_flow_id', flowId)
      .order('started_at', { ascending: false })
      .limit(50),
  );

export const stopSession = (id: string) => callApi<BotSession>(`/functions/v1/automation/bot-sessions/${id}/stop`, { method: 'POST', body: {} });

export const isOpen = (session: BotSession) => session.status === 'active' || session.status === 'waiting';

// What a refusal says about each node. A publish refusal (`bot_flow.invalid_graph`) lists every
// problem in its message, each naming its node: `node "menu" (definition.nodes[1].choices): a choice
// ask needs choices; node ...`; a save refusal names the path of the first thing wrong
// (`definition.nodes[2].validate: ...`). Anything not about a node is shown for the whole flow.
export interface FlowProblems {
  byNode: Map<string, string[]>;
  general: string[];
}
export function problemsOf(error: unknown, nodes: FlowNode[]): FlowProblems {
  const byNode = new Map<string, string[]>();
  const general: string[] = [];
  const add = (nodeId: string | null, text: string) => {
    if (nodeId === null) general.push(text);
    else byNode.set(nodeId, [...(byNode.get(nodeId) ?? []), text]);
  };
  if (!(error instanceof Error)) return { byNode, general };
  if (error instanceof ApiError && error.code === 'bot_flow.invalid_graph') {
    const listed = error.message.replace(/^the flow cannot be published: /, '');
    for (const part of listed.split(/; (?=node "|definition\.)/)) {
      const named = /^node "([^"]+)" \(([^)]*)\): ([\s\S]*)$/.exec(part);
      if (named) add(named[1], `${named[2]}: ${named[3]}`);
      else add(null, part);
    }
    return { byNode, general };
  }
  const index = /^definition\.nodes\[(\d+)\]/.exec(error.message);
  add(index ? (nodes[Number(index[1])]?.id ?? null) : null, error.message);
  return { byNode, general };
}

// A node's edges: [field path, target], as the graph shows them and renames follow them.
export function edgesOf(node: FlowNode): { label: string; target: string }[] {
  const edges: { label: string; target: string }[] = [];
  const push = (label: string, target: unknown) => {
    if (typeof target === 'string' && target) edges.push({ label, target });
  };
  push('', node.next);
  push('error', node.on_error);
  push('timeout', node.on_timeout);
  push('default', node.default);
  (node.choices as Choice[] | undefined)?.forEach((choice) => push(choice.label, choice.next));
  (node.cases as BranchCase[] | undefined)?.forEach((item, index) => push(`case ${index + 1}`, item.next));
  return edges;
}

// Every reference to `from` (the start, next, choices, cases, default, on_error, on_timeout) made to `to`.
export function renameNode(definition: BotFlow['definition'], from: string, to: string): BotFlow['definition'] {
  const swap = (value: unknown) => (value === from ? to : value);
  return {
    start: definition.start === from ? to : definition.start,
    nodes: definition.nodes.map((node) => {
      const next: FlowNode = { ...node, id: node.id === from ? to : node.id };
      for (const key of ['next', 'on_error', 'on_timeout', 'default']) if (key in next) next[key] = swap(next[key]);
      if (Array.isArray(next.choices))
        next.choices = (next.choices as Choice[]).map((choice) => ({ ...choice, next: swap(choice.next) as string | undefined }));
      if (Array.isArray(next.cases)) next.cases = (next.cases as BranchCase[]).map((item) => ({ ...item, next: swap(item.next) as string | undefined }));
      return next;
    }),
  };
}

// A new node of a type with the fields it needs, under an id not yet taken.
export function newNode(type: NodeType, taken: string[]): FlowNode {
  let number = 1;
  while (taken.includes(`${type}_${number}`)) number += 1;
  const id = `${type}_${number}`;
  switch (type) {
    case 'message':
      return { id, type, text: '' };
    case 'ask':
      return { id, type, text: '', validate: 'text' };
    case 'branch':
      return { id, type, cases: [{ conditions: { all: [] } }] };
    case 'set_field':
      return { id, type, field: 'variables.', value: '' };
    case 'add_tags':
      return { id, type, tags: [] };
    case 'webhook':
      return { id, type, url: 'https://' };
    case 'handoff':
      return { id, type, assignee: null };
    case 'end':
      return { id, type };
  }
}
