import { isUuid, ValidationFailed } from '@engage/shared-kernel';
import { filterText } from './segment-filter';

export const MAX_CONTACT_IDS = 10_000;

// Who a broadcast goes to: a saved segment, named contacts, or an unsaved filter.
export type Audience = { segmentId: string } | { contactIds: string[] } | { filter: string };

const invalid = (path: string, problem: string) => ValidationFailed('campaigns.invalid_audience', `${path}: ${problem}`, { path });
// A key under `path` (the body's own keys when `path` is empty).
const under = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

export function parseAudience(value: unknown, path = 'audience'): Audience {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(path || 'body', 'must be an object: {segment_id}, {contact_ids} or {filter}');
  }
  const keys = Object.keys(value);
  if (keys.length !== 1 || !['segment_id', 'contact_ids', 'filter'].includes(keys[0])) {
    throw invalid(path || 'body', 'must have exactly one of segment_id, contact_ids, filter');
  }
  const input = value as Record<string, unknown>;
  if ('segment_id' in input) {
    if (!isUuid(input.segment_id)) throw invalid(under(path, 'segment_id'), 'must be a UUID');
    return { segmentId: input.segment_id.toLowerCase() };
  }
  if ('contact_ids' in input) {
    const ids = input.contact_ids;
    if (!Array.isArray(ids) || ids.length === 0) throw invalid(under(path, 'contact_ids'), 'must be a non-empty array of UUIDs');
    if (ids.length > MAX_CONTACT_IDS) throw invalid(under(path, 'contact_ids'), `must have at most ${MAX_CONTACT_IDS} ids`);
    const bad = ids.findIndex((id) => !isUuid(id));
    if (bad >= 0) throw invalid(`${under(path, 'contact_ids')}[${bad}]`, 'must be a UUID');
    return { contactIds: [...new Set((ids as string[]).map((id) => id.toLowerCase()))] };
  }
  return { filter: filterText(input.filter, under(path, 'filter')) };
}

// As stored on a broadcast (and answered).
export const audienceJson = (audience: Audience) =>
  'segmentId' in audience ? { segment_id: audience.segmentId } : 'contactIds' in audience ? { contact_ids: audience.contactIds } : { filter: audience.filter };
