import { isUuid } from '@engage/shared-kernel';
import type { ChangeEvent } from './binding';

// What the database tells of a change (migration 0001): the table, the kind, the organization and
// the ids of the rows of one statement, never their content (NOTIFY payloads are public to every
// listener of the database and limited to 8000 bytes). Each subscriber reads the rows itself.
export interface ChangeNotice {
  table: string;
  type: ChangeEvent;
  organizationId: string;
  ids: readonly string[];
  // When the writing transaction began, ISO 8601.
  at: string;
}

export const CHANGES_CHANNEL = 'realtime_changes';

// undefined for anything that is not one (another writer on the channel): never thrown at the listener.
export function parseChangeNotice(payload: string | undefined): ChangeNotice | undefined {
  if (!payload) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { table, type, organization_id: organizationId, ids, at } = value as Record<string, unknown>;
  if (typeof table !== 'string' || typeof at !== 'string') return undefined;
  if (type !== 'INSERT' && type !== 'UPDATE' && type !== 'DELETE') return undefined;
  if (typeof organizationId !== 'string' || !isUuid(organizationId)) return undefined;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && isUuid(id))) return undefined;
  return { table, type, organizationId, ids, at };
}
