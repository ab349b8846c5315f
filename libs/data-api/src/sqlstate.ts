import { DomainError, type ErrorKind } from '@engage/shared-kernel';

// PostgREST answers PostgreSQL errors with the SQLSTATE itself as `code` (apps test
// `error.code === '23505'`) and its own status table; recognised by SQLSTATE only. The classes
// PostgREST answers with 5xx (server-side failures: 09, 25, 2D, 38-40, 55, 58, F0, HV, P0, XX, 42P17)
// stay unmapped and go to the platform's mapping; everything else a request can provoke is a 4xx.
// Two choices of ours: a statement timeout (57014) and PostgreSQL short of resources (53, not 53400)
// or unreachable (08) are 503, the request may succeed later; "too complex" (54: too many columns,
// stack depth) is the request's doing, 400 where PostgREST answers 500.
const FIVE_HUNDRED_CLASSES = new Set(['09', '25', '2D', '38', '39', '3B', '40', '55', '57', '58', 'F0', 'HV', 'P0', 'XX']);

function kindOf(sqlstate: string): ErrorKind | undefined {
  const cls = sqlstate.slice(0, 2);
  if (sqlstate === '23505' || sqlstate === '23503') return 'conflict';
  if (sqlstate === '25006') return 'method_not_allowed';
  if (sqlstate === '42501' || cls === '0L' || cls === '0P' || cls === '28') return 'forbidden';
  if (sqlstate === '42883' || sqlstate === '42P01') return 'not_found';
  if (sqlstate === 'P0001') return 'validation';
  if (sqlstate === '57014' || (cls === '53' && sqlstate !== '53400') || cls === '08') return 'unavailable';
  if (sqlstate === '42P17' || sqlstate === '53400' || FIVE_HUNDRED_CLASSES.has(cls)) return undefined;
  return 'validation';
}

const HINTS: Record<string, string> = {
  '57014': 'The request ran longer than the statement timeout: narrow it (filters, limit=, fewer columns or embeds) or try again later',
};

export function asPostgrestError(error: unknown): unknown {
  const candidate = error as { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown; severity?: unknown };
  // Only PostgreSQL's own errors carry a severity; a socket's EPIPE has a five-letter code too.
  if (error instanceof DomainError || typeof candidate?.severity !== 'string') return error;
  if (typeof candidate.code !== 'string' || !/^[0-9A-Z]{5}$/.test(candidate.code) || typeof candidate.message !== 'string') return error;
  const kind = kindOf(candidate.code);
  if (!kind) return error;
  const hint = typeof candidate.hint === 'string' ? candidate.hint : HINTS[candidate.code];
  return new DomainError(kind, candidate.code, candidate.message, typeof candidate.detail === 'string' ? candidate.detail : undefined, hint);
}
