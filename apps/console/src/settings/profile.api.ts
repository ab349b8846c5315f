import { useQuery } from '@tanstack/react-query';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { useSession } from '../auth/session';

export interface Profile {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string;
  role: string;
  onboarding_completed: boolean;
  email_confirmed: boolean;
}

// The signed-in member's profile (§2 Profile), shared by Settings and by every page that offers an
// action only some roles may take.
export function useProfile() {
  const { session } = useSession();
  const userId = session?.user.id ?? '';
  return useQuery({
    queryKey: ['profile', userId],
    enabled: userId !== '',
    queryFn: async () =>
      (await rows<Profile>(supabase.from('profiles').select('id,first_name,last_name,email,role,onboarding_completed,email_confirmed').eq('id', userId)))[0],
  });
}

// OWNER and ADMIN manage API keys and webhooks (docs/identity.md, docs/webhooks.md); other roles
// are not offered those sections at all.
export const managesOrganization = (role: string | undefined): boolean => role === 'OWNER' || role === 'ADMIN';
