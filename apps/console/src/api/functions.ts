import { apiErrorFrom } from './errors';
import { supabase } from './supabase';

// The one client for /functions/v1 and the routes supabase-js has no method for: the caller's
// session token, JSON both ways, the API's error turned into an ApiError.
export async function callApi<T>(path: string, options: { method?: string; body?: unknown; token?: string } = {}): Promise<T> {
  const token = options.token ?? (await supabase.auth.getSession()).data.session?.access_token;
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = { message: text };
  }
  if (!response.ok) throw apiErrorFrom(response.status, body);
  return body as T;
}
