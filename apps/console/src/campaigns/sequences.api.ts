import { callApi } from '../api/functions';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';

// Drip sequences (docs/campaigns.md, "Drip sequences"): written through
// /functions/v1/campaigns/sequences, enrolments read through /rest/v1/sequence_enrollments.
export interface StepDelay {
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
}
export interface SequenceStep {
  delay: StepDelay;
  at_time?: string | null;
  content: { text: string; media_url?: string | null; media_kind?: string | null };
}
export interface ExitOn {
  reply: boolean;
  opt_out: boolean;
  conversation_resolved: boolean;
}
export type SequenceStatus = 'draft' | 'active' | 'paused';
export interface Sequence {
  id: string;
  name: string;
  channel_account_id: string;
  channel_kind: 'chat_app' | 'sms';
  status: SequenceStatus;
  version: number;
  steps: SequenceStep[];
  exit_on: ExitOn;
  enrollments: { active: number; completed: number; exited: number; paused: number };
  created_at: string;
}
export interface SequenceFields {
  name: string;
  channel_account_id?: string;
  steps: SequenceStep[];
  exit_on: Pick<ExitOn, 'reply' | 'conversation_resolved'>;
}
export interface EnrollmentAnswer {
  enrolled: number;
  already_enrolled: number;
  skipped: { no_opt_in: number; no_phone: number };
}
export interface Enrollment {
  id: string;
  sequence_id: string;
  version: number;
  contact_id: string;
  status: 'active' | 'completed' | 'exited' | 'paused';
  exit_reason: string | null;
  current_step: number;
  next_step_at: string | null;
  enrolled_at: string;
}
export interface ContactName {
  id: string;
  first_name: string | null;
  last_name: string | null;
}

export const SEQUENCES = ['sequences'] as const;
const BASE = '/functions/v1/campaigns/sequences';

export const listSequences = async () => (await callApi<{ sequences: Sequence[] }>(`${BASE}?limit=100`)).sequences;
export const getSequence = (id: string) => callApi<Sequence>(`${BASE}/${id}`);
export const createSequence = (fields: SequenceFields) => callApi<Sequence>(BASE, { method: 'POST', body: fields });
export const updateSequence = (id: string, fields: SequenceFields) => callApi<Sequence>(`${BASE}/${id}`, { method: 'PATCH', body: fields });
export const moveSequence = (id: string, action: 'activate' | 'pause') => callApi<Sequence>(`${BASE}/${id}/${action}`, { method: 'POST' });
export const enroll = (id: string, audience: { segment_id: string } | { contact_ids: string[] }) =>
  callApi<EnrollmentAnswer>(`${BASE}/${id}/enrollments`, { method: 'POST', body: audience });
export const exitEnrollment = (id: string, enrollmentId: string) => callApi<Enrollment>(`${BASE}/${id}/enrollments/${enrollmentId}`, { method: 'DELETE' });

export const listEnrollments = (sequenceId: string) =>
  rows<Enrollment>(
    supabase
      .from('sequence_enrollments')
      .select('id,sequence_id,version,contact_id,status,exit_reason,current_step,next_step_at,enrolled_at')
      .eq('sequence_id', sequenceId)
      .order('enrolled_at', { ascending: false })
      .limit(100),
  );

// The names of the contacts in view (enrolments carry only the contact's id).
export const contactNames = (ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : rows<ContactName>(supabase.from('contacts').select('id,first_name,last_name').in('id', ids));

// Contacts to choose for an enrolment: the newest 50, or those whose name matches.
export const searchContacts = (search: string) => {
  let query = supabase.from('contacts').select('id,first_name,last_name').order('created_at', { ascending: false }).limit(50);
  const words = search
    .trim()
    .replace(/[,()*%]/g, ' ')
    .trim();
  if (words) query = query.or(`first_name.ilike.*${words}*,last_name.ilike.*${words}*`);
  return rows<ContactName>(query);
};

// When a step goes, in words: "After 1 day 2 hours, at 10:00", "At once".
export function stepWhen(step: SequenceStep): string {
  const parts = (['days', 'hours', 'minutes', 'seconds'] as const)
    .filter((unit) => (step.delay[unit] ?? 0) > 0)
    .map((unit) => `${step.delay[unit]} ${step.delay[unit] === 1 ? unit.slice(0, -1) : unit}`);
  const after = parts.length > 0 ? `After ${parts.join(' ')}` : step.at_time ? 'Next' : 'At once';
  return step.at_time ? `${after}, at ${step.at_time}` : after;
}
