import { callApi } from '../api/functions';

export const ROLES = ['OWNER', 'ADMIN', 'AGENT', 'PROJECT_MANAGER', 'TEAM_ADMIN'] as const;

export interface Member {
  id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  role: string;
  is_online: boolean;
  created_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  expires_at: string;
  created_at: string;
}

export const TEAM = ['team'] as const;

export const listMembers = async () => (await callApi<{ members: Member[] }>('/functions/v1/members')).members;
export const changeRole = (userId: string, role: string) => callApi<Member>(`/functions/v1/members/${userId}`, { method: 'PATCH', body: { role } });
export const removeMember = (userId: string) => callApi<void>(`/functions/v1/members/${userId}`, { method: 'DELETE' });
export const listInvitations = async () => (await callApi<{ invitations: Invitation[] }>('/functions/v1/invitations')).invitations;
export const invite = (email: string, role: string) => callApi<Invitation>('/functions/v1/invitations', { method: 'POST', body: { email, role } });
export const revokeInvitation = (id: string) => callApi<void>(`/functions/v1/invitations/${id}`, { method: 'DELETE' });

export const roleName = (role: string): string => role.charAt(0) + role.slice(1).toLowerCase().replace('_', ' ');
