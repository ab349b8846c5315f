import { callApi } from '../api/functions';
import { ApiError } from '../api/errors';
import { supabase } from '../api/supabase';

export type LinkType = 'signup' | 'recovery' | 'email_change' | 'email';

// An emailed link is `<api>/auth/v1/verify?token=…&type=…`; a browser opening it is sent on to
// /app/verify with the same query (docs/console.md). The console opens it itself (GET, answered as
// JSON to a script) and keeps the session it answers, whatever host the link names.
export function parseLink(text: string): { token: string; type: LinkType } {
  let url: URL;
  try {
    url = new URL(text.trim(), window.location.origin);
  } catch {
    throw new ApiError('That is not a link. Paste the whole address from the email.', 400);
  }
  const token = url.searchParams.get('token');
  const type = url.searchParams.get('type');
  if (!token || (type !== 'signup' && type !== 'recovery' && type !== 'email_change' && type !== 'email')) {
    throw new ApiError('That link has no verification token. Paste the whole address from the email.', 400);
  }
  return { token, type };
}

export async function openLink(link: { token: string; type: LinkType }): Promise<void> {
  const query = new URLSearchParams({ token: link.token, type: link.type });
  const session = await callApi<{ access_token: string; refresh_token: string }>(`/auth/v1/verify?${query}`, { token: '' });
  const { error } = await supabase.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token });
  if (error) throw new ApiError(error.message, error.status ?? 400, error.code);
}
