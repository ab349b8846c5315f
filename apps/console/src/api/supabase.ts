import { createClient } from '@supabase/supabase-js';

// The api writes its anon key into index.html when it serves it (apps/api/src/console-static.ts).
const anonKey = document.querySelector<HTMLMetaElement>('meta[name="engage-anon-key"]')?.content ?? '';

export const supabase = createClient(window.location.origin, anonKey || 'missing-anon-key', {
  auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false, storageKey: 'engage-console-auth' },
});
