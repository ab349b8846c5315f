import { DomainError, hasControlCharacter, isEmailAddress } from '@engage/shared-kernel';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

// GoTrue answers a weak password with 422 weak_password; so do we.
export function assertAcceptablePassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH) {
    throw new DomainError('validation', 'weak_password', `Password should be at least ${PASSWORD_MIN_LENGTH} characters.`, { reasons: ['length'] });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw new DomainError('validation', 'weak_password', `Password should be at most ${PASSWORD_MAX_LENGTH} characters.`, { reasons: ['length'] });
  }
}

// PostgreSQL's text cannot hold NUL: refused as bad input naming the field instead of failing in the database.
export function assertNoNul(value: string, field: string): void {
  if (value.includes('\u0000')) throw new DomainError('validation', 'validation_failed', `${field} must not contain NUL characters`);
}

export function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string') throw new DomainError('validation', 'validation_failed', 'email must be a string');
  const trimmed = email.trim().toLowerCase();
  // An account's address is its login: no control characters either.
  if (!isEmailAddress(trimmed) || hasControlCharacter(trimmed)) {
    throw new DomainError('validation', 'validation_failed', `Unable to validate email address: invalid format`);
  }
  return trimmed;
}
