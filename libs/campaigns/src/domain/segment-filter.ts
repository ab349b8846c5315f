import { ValidationFailed } from '@engage/shared-kernel';

export const MAX_FILTER_LENGTH = 4000;
// Parameters of a read that shape the answer rather than choose rows: not part of a segment.
const NOT_FILTERS = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);

export const filterInvalid = (path: string, problem: string) => ValidationFailed('campaigns.invalid_filter', `${path}: ${problem}`, { path });

// A segment's filter as text, checked for its shape before the data API's parser reads it: a query
// string of filters only (`tags=cs.{vip}&custom_fields->>city=eq.Cairo`), a leading `?` dropped.
// An empty filter is every contact.
export function filterText(value: unknown, path: string): string {
  if (typeof value !== 'string') throw filterInvalid(path, 'must be a text in the data API’s filter grammar');
  const filter = value.trim().replace(/^\?/, '');
  if (filter.length > MAX_FILTER_LENGTH) throw filterInvalid(path, `must be at most ${MAX_FILTER_LENGTH} characters`);
  for (const part of filter.split('&')) {
    const key = decodeKey(part.split('=')[0]);
    if (NOT_FILTERS.has(key)) throw filterInvalid(path, `${key} is not a filter; a segment takes filters on contacts only`);
  }
  return filter;
}

function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' ')).trim();
  } catch {
    return key;
  }
}
