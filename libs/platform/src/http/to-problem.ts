import { HttpException } from '@nestjs/common';
import { DomainError, type ErrorKind } from '@engage/shared-kernel';
import { type ConstraintKind, constraintViolationOf } from '../database/constraint-violation';
import { isUnreachable } from '../database/reachability';
import type { Problem } from './error-families';

const STATUS_OF_KIND: Record<ErrorKind, number> = {
  validation: 400,
  ambiguous: 300,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  payment_required: 402,
  too_large: 413,
  unsupported_media_type: 415,
  method_not_allowed: 405,
  not_acceptable: 406,
  range_not_satisfiable: 416,
  rate_limited: 429,
  unavailable: 503,
  upstream: 502,
};

// An integrity violation no statement mapped to a domain error: a stable code and a message of
// our own (PostgreSQL's names the table and echoes values), the constraint in details.
const VIOLATION: Record<ConstraintKind, { status: number; code: string; message: string }> = {
  unique: { status: 409, code: 'unique_violation', message: 'A record with the same value already exists' },
  foreign_key: {
    status: 409,
    code: 'foreign_key_violation',
    message: 'A referenced record does not exist in this organization, or another record still refers to this one',
  },
  check: { status: 400, code: 'check_violation', message: 'A value is not allowed here' },
  not_null: { status: 400, code: 'not_null_violation', message: 'A required value is missing' },
  exclusion: { status: 409, code: 'exclusion_violation', message: 'The record overlaps another one' },
};

// Other PostgreSQL errors a request can provoke, recognised by SQLSTATE, never by message text.
const SQLSTATE: Record<string, { status: number; code: string }> = {
  '22P02': { status: 400, code: 'invalid_text_representation' },
  '22001': { status: 400, code: 'string_data_right_truncation' },
  '22003': { status: 400, code: 'numeric_value_out_of_range' },
  '22007': { status: 400, code: 'invalid_datetime_format' },
  '22008': { status: 400, code: 'datetime_field_overflow' },
  '42501': { status: 403, code: 'insufficient_privilege' },
  // DATABASE_STATEMENT_TIMEOUT_MS: the request may succeed later or narrower.
  '57014': { status: 503, code: 'statement_timeout' },
};

// While the database cannot be reached every request that needs it answers this, so that clients
// and providers (whose webhooks retry on 5xx) come back instead of seeing an internal error.
const DATABASE_UNAVAILABLE: Problem = {
  status: 503,
  code: 'database_unavailable',
  message: 'The service cannot reach its database; retry shortly',
  details: { retry_after: 5 },
};

const FASTIFY: Record<string, { code: string; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', message: 'Request body is empty but content-type is application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_content_length' },
};

const codeOfStatus = (status: number): string =>
  ({
    400: 'bad_request',
    401: 'unauthorized',
    402: 'payment_required',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    406: 'not_acceptable',
    409: 'conflict',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    416: 'range_not_satisfiable',
    429: 'rate_limited',
  })[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');

// Turns anything thrown into a client-facing problem; null means "unexpected: answer 500".
export function toProblem(error: unknown): Problem | null {
  if (error instanceof DomainError) {
    return { status: STATUS_OF_KIND[error.kind], code: error.code, message: error.message, details: error.details, hint: error.hint };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status >= 500) return null;
    const response = error.getResponse();
    const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : error.message;
    return { status, code: status === 400 && Array.isArray(raw) ? 'validation_failed' : codeOfStatus(status), message };
  }
  if (isUnreachable(error)) return DATABASE_UNAVAILABLE;
  const violation = constraintViolationOf(error);
  if (violation) {
    const mapped = VIOLATION[violation.kind];
    const details = { ...(violation.constraint ? { constraint: violation.constraint } : {}), ...(violation.column ? { column: violation.column } : {}) };
    return { status: mapped.status, code: mapped.code, message: mapped.message, details };
  }
  const candidate = error as { code?: unknown; statusCode?: unknown; message?: unknown; detail?: unknown; hint?: unknown };
  if (typeof candidate?.code === 'string' && SQLSTATE[candidate.code] && typeof candidate.message === 'string') {
    const mapped = SQLSTATE[candidate.code];
    return {
      status: mapped.status,
      code: mapped.code,
      message: candidate.message,
      details: typeof candidate.detail === 'string' ? candidate.detail : undefined,
    };
  }
  if (typeof candidate?.statusCode === 'number' && candidate.statusCode >= 400 && candidate.statusCode < 500) {
    const known = typeof candidate.code === 'string' ? FASTIFY[candidate.code] : undefined;
    const message = known?.message ?? (typeof candidate.message === 'string' ? candidate.message : 'Bad request');
    return { status: candidate.statusCode, code: known?.code ?? codeOfStatus(candidate.statusCode), message };
  }
  return null;
}
