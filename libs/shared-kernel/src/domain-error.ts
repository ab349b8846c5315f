// Errors carry a stable machine-readable code; HTTP status is chosen by one filter per API family.
export type ErrorKind =
  | 'validation'
  | 'ambiguous'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  // Understood but refused by a rule of the domain (422).
  | 'unprocessable'
  // A plan's limit or an ended subscription (HTTP 402).
  | 'payment_required'
  | 'too_large'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'range_not_satisfiable'
  | 'rate_limited'
  | 'unavailable'
  | 'upstream';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    // An object of facts, or (PostgREST style) a sentence.
    readonly details?: Record<string, unknown> | string | unknown[],
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const ValidationFailed = (code: string, message: string, details?: Record<string, unknown>, hint?: string) =>
  new DomainError('validation', code, message, details, hint);

export const NotFound = (resource: string, id?: string) =>
  new DomainError('not_found', `${resource}.not_found`, id ? `${resource} ${id} not found` : `${resource} not found`, id ? { id } : undefined);

export const Conflict = (code: string, message: string, details?: Record<string, unknown>) => new DomainError('conflict', code, message, details);

export const Forbidden = (code: string, message: string) => new DomainError('forbidden', code, message);

export const Unauthorized = (code: string, message: string) => new DomainError('unauthorized', code, message);

export const isDomainError = (value: unknown): value is DomainError => value instanceof DomainError;
