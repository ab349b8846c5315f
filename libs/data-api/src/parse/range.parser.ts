import { parseError, pgrstError } from '../errors';

export interface Page {
  offset: number;
  limit?: number;
}

const INTEGER = /^-?\d+$/;

function integer(name: string, value: string): number {
  if (!INTEGER.test(value.trim())) throw parseError(`${name} parameter`, value, 1, 'an integer');
  return Number(value.trim());
}

// limit/offset from the query, intersected with a `Range: a-b` header (GET only, as PostgREST does).
export function parsePage(limitParam: string | undefined, offsetParam: string | undefined, rangeHeader: string | undefined): Page {
  let offset = offsetParam === undefined ? 0 : Math.max(0, integer('offset', offsetParam));
  let limit = limitParam === undefined ? undefined : integer('limit', limitParam);
  if (limit !== undefined && limit < 0) throw pgrstError('PGRST103', 416, 'Requested range not satisfiable', 'Limit should be greater than or equal to zero.');
  const range = rangeHeader === undefined ? undefined : /^\s*(?:items=)?(\d+)-(\d*)\s*$/.exec(rangeHeader);
  // An unparseable Range header is ignored, not refused.
  if (!range) return { offset, limit };
  const lower = Number(range[1]);
  const upper = range[2] === '' ? undefined : Number(range[2]);
  if (upper !== undefined && lower > upper) {
    throw pgrstError(
      'PGRST103',
      416,
      'Requested range not satisfiable',
      'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    );
  }
  const queryUpper = limit === undefined ? undefined : offset + limit - 1;
  const newUpper = upper === undefined ? queryUpper : queryUpper === undefined ? upper : Math.min(upper, queryUpper);
  offset = Math.max(offset, lower);
  limit = newUpper === undefined ? undefined : Math.max(0, newUpper - offset + 1);
  return { offset, limit };
}
