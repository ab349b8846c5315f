import { DomainError, type ErrorKind } from '@engage/shared-kernel';

// PostgREST answers PostgreSQL errors with the SQLSTATE itself as `code` (apps test
// `error.code === '23505'`) and its own status mapping; recognised by SQLSTATE only.
function kindOf(sqlstate: string): ErrorKind | undefined {
  if (sqlstate === '23505' || sqlstate === '23503') return 'conflict';
  if (sqlstate === '42501') return 'forbidden';
  if (sqlstate.startsWith('22') || sqlstate.startsWith('23') || sqlstate === 'P0001') return 'validation';
  return undefined;
}

export function asPostgrestError(error: unknown): unknown {
  const candidate = error as { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown };
  if (error instanceof DomainError || typeof candidate?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(candidate.code) || typeof candidate.message !== 'string') return error;
  const kind = kindOf(candidate.code);
  if (!kind) return error;
  return new DomainError(kind, candidate.code, candidate.message, typeof candidate.detail === 'string' ? candidate.detail : undefined, typeof candidate.hint === 'string' ? candidate.hint : undefined);
}
