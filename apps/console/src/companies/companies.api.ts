import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { callApi } from '../api/functions';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { ApiError } from '../api/errors';

// Companies as the console reads them (docs/crm.md, "Companies").

export const COMPANY_PAGE = 50;

export interface Company {
  id: string;
  name: string;
  country: string;
  website: string;
  industry: string;
  phones: string[];
  emails: string[];
  tags: string[];
  address_street: string;
  address_city: string;
  address_state: string;
  address_postal_code: string;
  address_country: string;
  company_size: string | number | null;
  annual_revenue: number | string | null;
  notes: string;
  description: string;
  created_at: string;
}

// Companies by name, 50 a page; a search goes through POST /functions/v1/search-companies (ranked).
export const useCompanyList = (page: number, search: string) =>
  useQuery({
    queryKey: ['companies', 'list', page, search],
    placeholderData: keepPreviousData,
    queryFn: async () => {
      if (search.trim()) {
        const found = await callApi<{ companies: (Company & { score: number })[] }>('/functions/v1/search-companies', {
          method: 'POST',
          body: { searchTerm: search.trim() },
        });
        return { companies: found.companies, total: found.companies.length };
      }
      const { data, error, count } = await supabase
        .from('companies')
        .select('id,name,country,industry,website,created_at', { count: 'exact' })
        .order('name')
        .order('id')
        .range((page - 1) * COMPANY_PAGE, page * COMPANY_PAGE - 1);
      if (error) throw new ApiError(error.message, 400, error.code, error.hint ?? undefined);
      return { companies: (data ?? []) as Company[], total: count ?? 0 };
    },
  });

export const useCompany = (id: string) =>
  useQuery({
    queryKey: ['companies', 'detail', id],
    queryFn: async () => {
      const [[company], contacts, deals] = await Promise.all([
        rows<Company>(supabase.from('companies').select('*').eq('id', id).limit(1)),
        rows<{ id: string; first_name: string; last_name: string | null }>(
          supabase.from('contacts').select('id,first_name,last_name').eq('company_id', id).order('first_name').limit(100),
        ),
        rows<{ id: string; title: string; value: number; currency: string; stage: string }>(
          supabase.from('deals').select('id,title,value,currency,stage').eq('company_id', id).order('created_at', { ascending: false }).limit(100),
        ),
      ]);
      return { company, contacts, deals };
    },
  });

export interface DuplicateGroup {
  company_ids: string[];
  companies: { id: string; name: string }[];
  score: number;
  reasons: string[] | string;
}

export const useDuplicates = () =>
  useQuery({
    queryKey: ['companies', 'duplicates'],
    queryFn: () => callApi<{ groups: DuplicateGroup[] }>('/functions/v1/find-duplicate-companies', { method: 'POST', body: {} }),
  });

export interface MergeResult {
  company: Company;
  merged_company_ids: string[];
  moved_contact_ids: string[];
  moved_deal_ids: string[];
}

export const mergeCompanies = (companyIds: string[], primaryCompanyId: string) =>
  callApi<MergeResult>('/functions/v1/find-duplicate-companies', { method: 'POST', body: { companyIds, primaryCompanyId } });
