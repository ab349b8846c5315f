import { definePermission, Forbidden, type Permission } from '@engage/shared-kernel';

// Identity's own permissions; every other context declares its own in its manifest.
export const ORGANIZATION_SETTINGS_MANAGE = definePermission('organization.settings.manage', ['OWNER', 'ADMIN']);
export const MEMBERS_MANAGE = definePermission('members.manage', ['OWNER', 'ADMIN']);
export const API_KEYS_MANAGE = definePermission('api_keys.manage', ['OWNER', 'ADMIN']);
export const IDENTITY_PERMISSIONS = [ORGANIZATION_SETTINGS_MANAGE, MEMBERS_MANAGE, API_KEYS_MANAGE];

// Whether a caller of this role may do it: only member roles named by the permission (never an API
// key, the system or an unknown role).
export function isAllowed(role: string, permission: Permission): boolean {
  return (permission.roles as readonly string[]).includes(role);
}

export function assertAllowed(role: string, permission: Permission): void {
  if (!isAllowed(role, permission)) throw Forbidden('insufficient_role', `Role ${role} may not ${permission.name.replace(/\./g, ' ')}`);
}
