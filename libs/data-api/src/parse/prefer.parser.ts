import { pgrstError } from '../errors';
import type { CountPreference } from './plan';

export interface Preferences {
  return?: 'representation' | 'minimal' | 'headers-only';
  count?: CountPreference;
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  missing?: 'default' | 'null';
  handling?: 'strict' | 'lenient';
  tx?: 'commit' | 'rollback';
  maxAffected?: number;
}

const VALUES: Record<string, readonly string[]> = {
  return: ['representation', 'minimal', 'headers-only'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  handling: ['strict', 'lenient'],
  tx: ['commit', 'rollback'],
};

// PostgREST's Preferences.fromHeaders: values comma-joined or in repeated headers, trimmed, the
// first occurrence of each wins. With `handling=strict` anything not understood is 400 PGRST122;
// otherwise it is ignored. `timezone` is understood but not applied (never echoed).
export function parsePreferences(prefer: string | undefined): Preferences {
  const preferences: Preferences = {};
  const seen = new Set<string>();
  const invalid: string[] = [];
  for (const raw of (prefer ?? '').split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = (equals < 0 ? part : part.slice(0, equals)).trim();
    const value = equals < 0 ? '' : part.slice(equals + 1).trim();
    if (name === 'timezone' && value !== '') continue;
    const allowed = VALUES[name];
    const maxAffected = name === 'max-affected' && /^\d{1,9}$/.test(value);
    if (!maxAffected && !allowed?.includes(value)) {
      invalid.push(part);
      continue;
    }
    if (seen.has(name)) continue;
    seen.add(name);
    if (maxAffected) preferences.maxAffected = Number(value);
    else Object.assign(preferences, { [name]: value });
  }
  if (preferences.handling === 'strict' && invalid.length > 0) {
    throw pgrstError('PGRST122', 400, 'Invalid preferences given with handling=strict', `Invalid preferences: ${invalid.join(', ')}`);
  }
  // max-affected only counts under strict handling, as in PostgREST.
  if (preferences.handling !== 'strict') delete preferences.maxAffected;
  return preferences;
}

// The honoured preferences, in PostgREST's order, for the Preference-Applied header.
export function preferenceApplied(applied: Preferences): string | undefined {
  const parts: string[] = [];
  if (applied.resolution) parts.push(`resolution=${applied.resolution}`);
  if (applied.missing) parts.push(`missing=${applied.missing}`);
  if (applied.return) parts.push(`return=${applied.return}`);
  if (applied.count) parts.push(`count=${applied.count}`);
  if (applied.tx) parts.push(`tx=${applied.tx}`);
  if (applied.handling) parts.push(`handling=${applied.handling}`);
  if (applied.maxAffected !== undefined) parts.push(`max-affected=${applied.maxAffected}`);
  return parts.length ? parts.join(', ') : undefined;
}
