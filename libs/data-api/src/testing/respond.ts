import { DomainError } from '@engage/shared-kernel';

// What the HTTP layer would answer for a DomainError on /rest/v1 (the platform maps kinds to
// statuses), so engine tests can state request -> status, headers, body like PostgREST's spec tests.
const STATUS: Record<string, number> = {
  validation: 400,
  ambiguous: 300,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  method_not_allowed: 405,
  not_acceptable: 406,
  range_not_satisfiable: 416,
  unavailable: 503,
};

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export async function answer(work: () => Promise<{ status: number; headers: Record<string, string>; body: string }>): Promise<Answer> {
  try {
    const response = await work();
    const json = response.headers['content-type']?.includes('json');
    return { status: response.status, headers: response.headers, body: json && response.body !== '' ? JSON.parse(response.body) : response.body };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return {
      status: STATUS[error.kind] ?? 500,
      headers: {},
      body: { code: error.code, message: error.message, details: error.details ?? null, hint: error.hint ?? null },
    };
  }
}
