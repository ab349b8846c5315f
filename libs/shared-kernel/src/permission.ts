import type { Role } from './request-context';

// Something a member may or may not do, declared by the context that owns it (in its manifest,
// beside its tables and jobs) and checked by identity's `assertAllowed`.
export interface Permission {
  readonly name: string;
  readonly roles: readonly Role[];
}

export const definePermission = (name: string, roles: readonly Role[]): Permission => Object.freeze({ name, roles: Object.freeze([...roles]) });
