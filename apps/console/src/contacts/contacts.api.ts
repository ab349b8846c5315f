import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError, apiErrorFrom } from '../api/errors';
import { callApi } from '../api/functions';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';

// Contacts as the console reads and writes them (docs/crm.md, "Contacts", "CSV import and export").

export const PAGE_SIZE = 50;

export interface ContactRow {
  id: string;
  first_name: string;
  last_name: string | null;
  phones: string[];
  emails: string[];
  tags: string[];
  company_id: string | null;
  created_at: string;
}

export interface Contact extends ContactRow {
  description: string;
  assignee_id: string | null;
  source: string;
  opt_in_status: boolean;
  custom_fields: Record<string, unknown>;
  updated_at: string;
  company: { id: string; name: string } | null;
}

export interface ContactPage {
  contacts: ContactRow[];
  total: number;
  page: number;
  total_pages: number;
}

export interface ListFilters {
  search: string;
  tag: string;
  page: number;
}

// Without a tag: the mobile list (GET /functions/v1/mobile-api/contacts), whose search matches the
// full name or a phone number in any written form. With a tag: /rest/v1/contacts filtered on the
// tag (the mobile list has no tag filter), searching first or last name, or the whole phone number.
export const useContactList = (filters: ListFilters) =>
  useQuery({
    queryKey: ['contacts', 'list', filters],
    placeholderData: keepPreviousData,
    queryFn: async (): Promise<ContactPage> => {
      const search = filters.search.trim();
      if (!filters.tag) {
        const params = new URLSearchParams({ page: String(filters.page), limit: String(PAGE_SIZE) });
        if (search) params.set('search', search);
        return callApi<ContactPage>(`/functions/v1/mobile-api/contacts?${params}`);
      }
      let query = supabase
        .from('contacts')
        .select('id,first_name,last_name,phones,emails,tags,company_id,created_at', { count: 'exact' })
        .contains('tags', [filters.tag])
        .order('created_at', { ascending: false })
        .order('id')
        .range((filters.page - 1) * PAGE_SIZE, filters.page * PAGE_SIZE - 1);
      if (search) {
        const term = search.replace(/[,()*"\\]/g, ' ').trim();
        const phone = /^[+\d][\d\s().-]*$/.test(search) ? `,phones.cs.{"${search.replace(/[^\d+]/g, '')}"}` : '';
        query = query.or(`first_name.ilike.*${term}*,last_name.ilike.*${term}*${phone}`);
      }
      const { data, error, count } = await query;
      if (error) throw new ApiError(error.message, 400, error.code, error.hint ?? undefined);
      const total = count ?? 0;
      return { contacts: (data ?? []) as ContactRow[], total, page: filters.page, total_pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
    },
  });

// The tags in use, for the filter (the API has no list of tags: read from the contacts' tags).
export const useTags = () =>
  useQuery({
    queryKey: ['contacts', 'tags'],
    staleTime: 60_000,
    queryFn: async () => {
      const tagged = await rows<{ tags: string[] }>(supabase.from('contacts').select('tags').not('tags', 'eq', '{}').limit(5000));
      return [...new Set(tagged.flatMap((row) => row.tags))].sort((a, b) => a.localeCompare(b));
    },
  });

export const useContact = (id: string) =>
  useQuery({ queryKey: ['contacts', 'detail', id], queryFn: () => callApi<Contact>(`/functions/v1/mobile-api/contacts/${encodeURIComponent(id)}`) });

export interface TimelineEntry {
  id: string;
  type: string;
  occurred_at: string;
  summary: string;
  deal_id: string | null;
}

export const useTimeline = (kind: 'contacts' | 'companies' | 'deals', id: string) =>
  useQuery({
    queryKey: [kind, 'timeline', id],
    queryFn: () => callApi<{ entries: TimelineEntry[]; next_cursor: string | null }>(`/functions/v1/${kind}/${encodeURIComponent(id)}/timeline?limit=50`),
  });

export const useCompanyOptions = () =>
  useQuery({
    queryKey: ['companies', 'options'],
    staleTime: 60_000,
    queryFn: () => rows<{ id: string; name: string }>(supabase.from('companies').select('id,name').order('name').limit(500)),
  });

export interface ContactInput {
  first_name: string;
  last_name: string | null;
  phones: string[];
  emails: string[];
  tags: string[];
  company_id: string | null;
  description: string;
}

// The field a refusal is about, so the form shows the API's message next to it.
export class FieldError extends ApiError {}

export function fieldOf(error: { code?: string; details?: unknown }): string | undefined {
  const details = (error.details && typeof error.details === 'object' ? error.details : {}) as Record<string, unknown>;
  if (typeof details.field === 'string') return details.field;
  if (error.code?.includes('phone') || 'phone' in details || 'phones' in details) return 'phones';
  if (error.code?.includes('email') || 'email' in details || 'emails' in details) return 'emails';
  if (error.code?.includes('company')) return 'company_id';
  return undefined;
}

// POST /rest/v1/contacts or PATCH /rest/v1/contacts?id=eq.<id>: the saved contact, or the API's
// refusal with the field it names.
export async function saveContact(input: ContactInput, id?: string): Promise<{ id: string }> {
  const query = id ? supabase.from('contacts').update(input).eq('id', id).select('id') : supabase.from('contacts').insert(input).select('id');
  const { data, error } = await query;
  if (error) throw new FieldError(error.message, 400, error.code, error.hint ?? undefined, fieldOf(error as { code?: string; details?: unknown }));
  return (data as { id: string }[])[0];
}

export interface ImportJob {
  id: string;
  entity: 'contacts' | 'companies';
  status: 'running' | 'completed' | 'failed';
  processed: number;
  created: number;
  updated: number;
  failed: number;
  errors: { line: number; error: string; code: string }[];
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface ImportProgress {
  sent: number;
  total: number;
  job?: ImportJob;
}

// POST /functions/v1/<entity>/import with the file as multipart (as a form sends it). The upload's
// bytes come from the request's progress events; the rows written from the job, polled through
// GET /functions/v1/imports while the upload runs (the API answers only once the job is finished).
export async function importCsv(entity: 'contacts' | 'companies', file: File, onProgress: (progress: ImportProgress) => void): Promise<ImportJob> {
  const token = (await supabase.auth.getSession()).data.session?.access_token;
  const started = Date.now() - 5_000;
  let progress: ImportProgress = { sent: 0, total: file.size };
  const report = (change: Partial<ImportProgress>) => {
    progress = { ...progress, ...change };
    onProgress(progress);
  };
  const poll = setInterval(async () => {
    try {
      const recent = await callApi<ImportJob[] | { jobs?: ImportJob[]; imports?: ImportJob[] }>('/functions/v1/imports');
      const jobs = Array.isArray(recent) ? recent : (recent.jobs ?? recent.imports ?? []);
      const job = jobs.find((candidate) => candidate.entity === entity && candidate.status === 'running' && Date.parse(candidate.created_at) >= started);
      if (job) report({ job });
    } catch {
      // Progress is a courtesy: the upload's own answer is what counts.
    }
  }, 500);
  try {
    return await new Promise<ImportJob>((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', `/functions/v1/${entity}/import`);
      if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
      request.setRequestHeader('accept', 'application/json');
      request.upload.onprogress = (event) => report({ sent: event.loaded, total: event.lengthComputable ? event.total : file.size });
      request.onerror = () => reject(new ApiError('The upload failed: the connection to the server was lost.', 0));
      request.onload = () => {
        let body: unknown;
        try {
          body = JSON.parse(request.responseText);
        } catch {
          body = { message: request.responseText };
        }
        if (request.status >= 200 && request.status < 300) resolve(body as ImportJob);
        else reject(apiErrorFrom(request.status, body));
      };
      const form = new FormData();
      form.append('file', file, file.name);
      request.send(form);
    });
  } finally {
    clearInterval(poll);
  }
}

// GET /functions/v1/<entity>/export, saved as a file (the export needs the session's token, so a
// plain link cannot fetch it).
export async function exportCsv(entity: 'contacts' | 'companies'): Promise<number> {
  const token = (await supabase.auth.getSession()).data.session?.access_token;
  const response = await fetch(`/functions/v1/${entity}/export`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) {
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text };
    }
    throw apiErrorFrom(response.status, body);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `${entity}-${new Date().toISOString().slice(0, 10)}.csv`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return blob.size;
}
