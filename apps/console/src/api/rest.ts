import { fromSupabase } from './errors';

// A supabase-js (PostgREST) answer as a query result: the rows, or the API's error thrown.
export async function rows<T>(query: PromiseLike<{ data: unknown; error: { message: string; code?: string; hint?: string } | null }>): Promise<T[]> {
  const { data, error } = await query;
  if (error) throw fromSupabase(error);
  return (data ?? []) as T[];
}

export const fullName = (person: { first_name?: string | null; last_name?: string | null } | null | undefined): string =>
  [person?.first_name, person?.last_name].filter(Boolean).join(' ') || '(no name)';

export const dateTime = (value: string | null | undefined): string => (value ? new Date(value).toLocaleString() : '');
