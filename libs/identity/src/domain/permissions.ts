import { type Role, Forbidden } from '@engage/shared-kernel';

// The one table of which role may do what; every context asks it through `assertAllowed`.
export const PERMISSIONS = {
  'organization.settings.manage': ['OWNER', 'ADMIN'],
  'members.manage': ['OWNER', 'ADMIN'],
  'api_keys.manage': ['OWNER', 'ADMIN'],
  'reengagement.configure': ['OWNER', 'ADMIN'],
  'reengagement.drafts.review': ['OWNER', 'ADMIN', 'AGENT'],
  'webhooks.manage': ['OWNER', 'ADMIN'],
  'contacts.read': ['OWNER', 'ADMIN', 'AGENT', 'PROJECT_MANAGER', 'TEAM_ADMIN'],
  'contacts.write': ['OWNER', 'ADMIN', 'AGENT', 'PROJECT_MANAGER', 'TEAM_ADMIN'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function isAllowed(role: string, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly string[]).includes(role);
}

export function assertAllowed(role: string, permission: Permission): void {
  if (!isAllowed(role, permission)) throw Forbidden('insufficient_role', `Role ${role} may not ${permission.replace(/\./g, ' ')}`);
}
