import { useQuery, useQueryClient } from '@tanstack/react-query';
import { callApi } from '../api/functions';
import { fullName, rows } from '../api/rest';
import { supabase } from '../api/supabase';

// The deals API as the board and the details use it (docs/crm.md, "Pipelines, stages and deals").

export interface Pipeline {
  id: string;
  name: string;
  is_default: boolean;
}

export interface Card {
  id: string;
  title: string;
  value: number | string;
  currency: string;
  probability: number;
  owner_id: string | null;
  contact_id: string | null;
  priority: string;
  position: number;
}

export interface Column {
  id: string;
  key: string;
  name: string;
  color: string | null;
  position: number;
  default_probability: number | null;
  deal_count: number;
  total_value: number | string;
  has_more: boolean;
  deals: Card[];
}

export interface Board {
  pipeline_id: string;
  stages: Column[];
}

export interface Deal extends Card {
  description: string;
  pipeline_id: string;
  stage_id: string;
  stage: string;
  company_id: string | null;
  source: string;
  expected_close_date: string | null;
  notes: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  last_activity_at: string | null;
}

export interface StageChange {
  id: number;
  from_stage: string | null;
  to_stage: string;
  changed_by: string | null;
  changed_at: string;
}

export interface OwnerPeriod {
  id: number;
  owner_id: string | null;
  started_at: string;
  ended_at: string | null;
  duration_seconds: number | null;
  reason: string;
  changed_by: string | null;
}

export interface Member {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string;
}

export const dealsKey = ['deals'] as const;
export const boardKey = (pipelineId: string) => ['deals', 'board', pipelineId] as const;

// Every pipeline, the default one first.
export const usePipelines = () =>
  useQuery({
    queryKey: ['deals', 'pipelines'],
    queryFn: () => rows<Pipeline>(supabase.from('pipelines').select('id,name,is_default').order('is_default', { ascending: false }).order('name')),
  });

export const BOARD_REFRESH_MS = 15_000;

// GET /functions/v1/deals/board: the stages in order with count, total and their first cards.
// Realtime does not announce deals (docs/realtime.md), so another member's move shows when the
// window regains the focus and every 15 s while the page is visible; each time with as many cards
// per column as are shown, so a column opened past its first 100 stays open (up to the API's 500).
export function useBoard(pipelineId: string | undefined) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: boardKey(pipelineId ?? ''),
    enabled: !!pipelineId,
    refetchInterval: BOARD_REFRESH_MS,
    refetchOnWindowFocus: 'always',
    queryFn: () => {
      const shown = queryClient.getQueryData<Board>(boardKey(pipelineId!))?.stages.map((stage) => stage.deals.length) ?? [];
      const limit = Math.min(500, Math.max(100, ...shown));
      return callApi<Board>(`/functions/v1/deals/board?pipeline_id=${encodeURIComponent(pipelineId!)}&limit=${limit}`);
    },
  });
}

// The organization's members (owners of deals), by id.
export const useMembers = () =>
  useQuery({
    queryKey: ['profiles', 'members'],
    staleTime: 60_000,
    queryFn: async () => {
      const members = await rows<Member>(supabase.from('profiles').select('id,first_name,last_name,email').limit(1000));
      return new Map(members.map((member) => [member.id, member]));
    },
  });

export const memberName = (members: Map<string, Member> | undefined, id: string | null): string => {
  if (!id) return 'No owner';
  const member = members?.get(id);
  if (!member) return 'Unknown member';
  return member.first_name || member.last_name ? fullName(member) : member.email;
};

// The names of the contacts on the cards shown.
export const useContactNames = (ids: string[]) =>
  useQuery({
    queryKey: ['contacts', 'names', [...ids].sort().join(',')],
    enabled: ids.length > 0,
    queryFn: async () => {
      const contacts = await rows<{ id: string; first_name: string; last_name: string | null }>(
        supabase.from('contacts').select('id,first_name,last_name').in('id', ids),
      );
      return new Map(contacts.map((contact) => [contact.id, fullName(contact)]));
    },
  });

// POST /functions/v1/deals/:id/move: the stage by its key; the deal as it now is (its probability
// set by the stage, as the API applies it).
export const moveDeal = (id: string, stage: string) => callApi<Deal>(`/functions/v1/deals/${encodeURIComponent(id)}/move`, { method: 'POST', body: { stage } });

// The probability the API gives a deal moved to the stage (docs/crm.md): 100 won, 0 lost, else
// the stage's default when it has one, else unchanged. Shown at once; the answer confirms it.
export function probabilityAfterMove(column: Column, current: number): number {
  if (column.key === 'CLOSED_WON') return 100;
  if (column.key === 'CLOSED_LOST') return 0;
  return column.default_probability ?? current;
}

export const useDeal = (id: string) =>
  useQuery({
    queryKey: ['deals', 'detail', id],
    queryFn: async () => {
      const [deal] = await rows<Deal & { contacts: { first_name: string; last_name: string | null } | null }>(
        supabase.from('deals').select('*,contacts(first_name,last_name)').eq('id', id).limit(1),
      );
      const [stages, owners, stageNames] = await Promise.all([
        rows<StageChange>(
          supabase.from('deal_stage_history').select('id,from_stage,to_stage,changed_by,changed_at').eq('deal_id', id).order('changed_at').order('id'),
        ),
        rows<OwnerPeriod>(
          supabase
            .from('deal_owner_history')
            .select('id,owner_id,started_at,ended_at,duration_seconds,reason,changed_by')
            .eq('deal_id', id)
            .order('started_at')
            .order('id'),
        ),
        deal
          ? rows<{ key: string; name: string }>(supabase.from('pipeline_stages').select('key,name').eq('pipeline_id', deal.pipeline_id))
          : Promise.resolve([]),
      ]);
      return { deal, stages, owners, stageNames: new Map(stageNames.map((stage) => [stage.key, stage.name])) };
    },
  });

export function money(value: number | string, currency: string | undefined): string {
  const amount = Number(value);
  if (!currency) return amount.toLocaleString(undefined, { minimumFractionDigits: 0, maximumFractionDigits: 2 });
  try {
    return amount.toLocaleString(undefined, { style: 'currency', currency, maximumFractionDigits: 2 });
  } catch {
    return `${amount.toLocaleString()} ${currency}`;
  }
}

export function duration(seconds: number | null, from: string, to: string | null): string {
  const total = seconds ?? Math.max(0, ((to ? Date.parse(to) : Date.now()) - Date.parse(from)) / 1000);
  if (total < 60) return `${Math.round(total)} s`;
  if (total < 3600) return `${Math.round(total / 60)} min`;
  if (total < 86_400) return `${(total / 3600).toFixed(1)} h`;
  return `${(total / 86_400).toFixed(1)} days`;
}
