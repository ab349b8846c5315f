export type ApiFamily = 'functions' | 'proxy' | 'rest' | 'auth';

export function familyOf(url: string): ApiFamily {
  const path = url.split('?')[0];
  if (path.startsWith('/functions/v1/rest-api-proxy')) return 'proxy';
  if (path.startsWith('/rest/v1')) return 'rest';
  if (path.startsWith('/auth/v1')) return 'auth';
  return 'functions';
}

export interface Problem {
  status: number;
  code: string;
  message: string;
  details?: unknown;
  hint?: string;
}

export interface Rendered {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

// GoTrue answers these with other statuses than our defaults; auth-js reads the code either way.
const GOTRUE_STATUS: Record<string, number> = {
  invalid_credentials: 400,
  weak_password: 422,
  user_already_exists: 422,
  validation_failed: 400,
  reauthentication_not_valid: 422,
};

// The body shape each family's clients expect (spec §7; PostgREST; GoTrue old and new formats).
export function renderProblem(family: ApiFamily, problem: Problem, requestHeaders: Record<string, string | string[] | undefined>): Rendered {
  const rendered = renderBody(family, problem, requestHeaders);
  const retryAfter = (problem.details as { retry_after?: unknown } | undefined)?.retry_after;
  if ((problem.status === 429 || problem.status === 503) && typeof retryAfter === 'number') rendered.headers['retry-after'] = String(retryAfter);
  return rendered;
}

function renderBody(family: ApiFamily, problem: Problem, requestHeaders: Record<string, string | string[] | undefined>): Rendered {
  switch (family) {
    case 'functions':
      return {
        status: problem.status,
        headers: {},
        body: { error: problem.message, code: problem.code, ...(problem.hint ? { hint: problem.hint } : {}), ...factsOf(problem) },
      };
    case 'proxy':
      return {
        status: problem.status,
        headers: {},
        body: { error: problem.message, hint: problem.hint ?? null, code: problem.code, details: problem.details ?? null },
      };
    case 'rest':
      // PostgREST's own code for a body that is not JSON (supabase-js and PostgREST clients test for it).
      if (problem.code === 'invalid_json') problem = { ...problem, code: 'PGRST102', message: 'Empty or invalid json', details: problem.message };
      return {
        status: problem.status,
        headers: {},
        body: { code: problem.code, message: problem.message, details: problem.details ?? null, hint: problem.hint ?? null },
      };
    case 'auth': {
      problem = { ...problem, status: GOTRUE_STATUS[problem.code] ?? problem.status };
      const version = requestHeaders['x-supabase-api-version'];
      if (typeof version === 'string' && version >= '2024-01-01') {
        return {
          status: problem.status,
          headers: { 'x-supabase-api-version': '2024-01-01', 'x-sb-error-code': problem.code },
          body: { code: problem.code, message: problem.message },
        };
      }
      return {
        status: problem.status,
        headers: { 'x-sb-error-code': problem.code },
        body: { code: problem.status, error_code: problem.code, msg: problem.message },
      };
    }
  }
}

// A 402 names what ran out (the limit, its value and the usage), a 422 the rule that refused (e.g.
// which messaging window closed and when): clients of the functions family read it from `details`
// as the other families' clients do.
function factsOf(problem: Problem): { details?: unknown } {
  return (problem.status === 402 || problem.status === 422) && problem.details !== undefined ? { details: problem.details } : {};
}
