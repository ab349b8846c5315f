export const ROLES = ['OWNER', 'ADMIN', 'AGENT', 'PROJECT_MANAGER', 'TEAM_ADMIN'] as const;
export type Role = (typeof ROLES)[number];

// Who is calling, for which organization. Handlers receive it first and never see HTTP.
export interface RequestContext {
  organizationId: string;
  userId: string | null;
  role: Role | 'API_KEY' | 'SYSTEM';
  requestId: string;
}

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);
