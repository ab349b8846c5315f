// One error type for every API family: the message the API gave, its code and hint, and the field
// it names, so a page can show the API's reason next to what caused it (docs/console.md).
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly hint?: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  message?: string;
  msg?: string;
  error?: string | { message?: string; code?: string };
  error_description?: string;
  code?: string | number;
  error_code?: string;
  hint?: string | null;
  details?: unknown;
}

export function apiErrorFrom(status: number, body: unknown): ApiError {
  const value = (body && typeof body === 'object' ? body : {}) as ErrorBody;
  const nested = typeof value.error === 'object' && value.error ? value.error : undefined;
  const message =
    value.message ?? value.msg ?? nested?.message ?? (typeof value.error === 'string' ? value.error : undefined) ?? value.error_description ?? `HTTP ${status}`;
  const details = (value.details && typeof value.details === 'object' ? value.details : {}) as { field?: string };
  return new ApiError(message, status, String(value.code ?? value.error_code ?? nested?.code ?? ''), value.hint ?? undefined, details.field);
}

// supabase-js gives {message, code, hint} (PostgREST) or AuthError {message, status, code}.
export function fromSupabase(error: { message: string; status?: number; code?: string; hint?: string } | null): ApiError | undefined {
  if (!error) return undefined;
  return new ApiError(error.message, error.status ?? 400, error.code, error.hint ?? undefined);
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// The path a refusal names: the API's message starts with it (`conditions.all[1].operator: ...`,
// `steps[1].at_time: ...`).
export const refusedPath = (error: unknown): string | null => {
  const message = error instanceof Error ? error.message : '';
  const match = /^([a-z_]+(?:\[\d+\]|\.[a-z_]+)*)(?=: )/.exec(message);
  return match ? match[1] : null;
};
