import { DomainError, type ErrorKind } from '@engage/shared-kernel';
import { DatabaseFailure, SQLSTATE_PATTERN } from './database-failure';

// Integrity violations, recognised once by SQLSTATE (never by message text) from the statement's
// DatabaseFailure, so no context reads driver internals. A statement may map them to domain errors
// (QueryOptions.violations); one nobody mapped becomes a ConstraintViolationError, which the HTTP
// layer answers as a 4xx with a stable code and without PostgreSQL's text.
export type ConstraintKind = 'unique' | 'foreign_key' | 'check' | 'not_null' | 'exclusion';

const KIND_OF_SQLSTATE: Record<string, ConstraintKind> = {
  '23505': 'unique',
  '23503': 'foreign_key',
  '23514': 'check',
  '23502': 'not_null',
  '23P01': 'exclusion',
};

export interface ConstraintViolation {
  kind: ConstraintKind;
  sqlState: string;
  // The constraint's name (for not_null, none: the column names it).
  constraint: string | undefined;
  column: string | undefined;
}

// Keys: a constraint's name, or a kind for any constraint of that kind; the name wins.
export type ViolationMap = Partial<Record<string, (violation: ConstraintViolation) => Error>>;

// Read as a DatabaseFailure is: `code` is the SQLSTATE (as PostgREST reports it) and `constraint`
// the constraint's name; `message` is PostgreSQL's, which only the data API (PostgREST's contract)
// may show. The failure it was made from is its cause (the statement's text is there).
export class ConstraintViolationError extends Error {
  readonly code: string;
  readonly constraint: string | undefined;
  readonly detail: string | undefined;

  constructor(
    readonly violation: ConstraintViolation,
    message: string,
    detail: string | undefined,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = 'ConstraintViolationError';
    this.code = violation.sqlState;
    this.constraint = violation.constraint;
    this.detail = detail;
  }
}

// Refusals raised by a database rule (a trigger of a context), recognised by SQLSTATE: the class
// EG is ours. The rule's MESSAGE is the client's message and its DETAIL a JSON object of facts
// with the stable `code`. Enforced in the database, a rule holds on every path that writes.
export const RULE_REFUSAL_SQLSTATE = { paymentRequired: 'EG402', conflict: 'EG409' } as const;
const KIND_OF_RULE_SQLSTATE: Record<string, ErrorKind> = { EG402: 'payment_required', EG409: 'conflict' };
// PostgreSQL's own refusal in a read-only transaction: the tenant transaction is made read-only for
// an organization whose subscription ended (Database.inTenant), and for nothing else.
const READ_ONLY_SQLSTATE = '25006';

function ruleRefusalOf(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return undefined;
  const fields = fieldsOf(error);
  const code = typeof fields?.code === 'string' ? fields.code : undefined;
  if (code === READ_ONLY_SQLSTATE) {
    const message = 'The organization is read-only: its subscription is canceled or past due and its period has ended';
    return new DomainError('payment_required', 'subscription_inactive', message, undefined, 'renew the subscription through billing; reads keep working');
  }
  const kind = code ? KIND_OF_RULE_SQLSTATE[code] : undefined;
  if (!kind) return undefined;
  let facts: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text(fields?.detail) ?? '{}');
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) facts = parsed as Record<string, unknown>;
  } catch {
    // A rule without facts still refuses; its code is then the SQLSTATE.
  }
  const { code: ruleCode, ...details } = facts;
  const message = text(fields?.message) ?? 'refused by a rule of the database';
  return new DomainError(kind, typeof ruleCode === 'string' ? ruleCode : (code as string), message, details, text(fields?.hint));
}

// PostgreSQL's error report, read on the error itself (a DatabaseFailure, or pg's own DatabaseError
// from a client used directly).
interface ReportFields {
  code?: unknown;
  severity?: unknown;
  constraint?: unknown;
  column?: unknown;
  detail?: unknown;
  hint?: unknown;
  message?: unknown;
}

export function constraintViolationOf(error: unknown): ConstraintViolation | null {
  if (error instanceof ConstraintViolationError) return error.violation;
  const fields = fieldsOf(error);
  const kind = typeof fields?.code === 'string' ? KIND_OF_SQLSTATE[fields.code] : undefined;
  if (!fields || !kind) return null;
  return { kind, sqlState: fields.code as string, constraint: text(fields.constraint), column: text(fields.column) };
}

// What a failed statement becomes: the mapped domain error, a ConstraintViolationError, or the
// error as it was when it is no integrity violation.
export function translateViolation(error: unknown, map: ViolationMap | undefined): unknown {
  const refusal = ruleRefusalOf(error);
  if (refusal) return refusal;
  const violation = constraintViolationOf(error);
  if (!violation) return error;
  const build = (violation.constraint !== undefined ? map?.[violation.constraint] : undefined) ?? map?.[violation.kind];
  if (build) return build(violation);
  if (error instanceof ConstraintViolationError) return error;
  const fields = fieldsOf(error)!;
  return new ConstraintViolationError(violation, text(fields.message) ?? 'integrity constraint violated', text(fields.detail), error);
}

function fieldsOf(error: unknown): ReportFields | undefined {
  return typeof error === 'object' && error !== null ? (error as ReportFields) : undefined;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

// The SQLSTATE of a database error (a DatabaseFailure that PostgreSQL answered, a
// ConstraintViolationError), for a decision or a message that names it without PostgreSQL's text.
// Undefined for anything else: a lost connection, a domain error, a socket's EPIPE.
export function sqlStateOf(error: unknown): string | undefined {
  if (error instanceof DatabaseFailure) return error.sqlState;
  if (error instanceof ConstraintViolationError) return error.code;
  const fields = fieldsOf(error);
  return typeof fields?.severity === 'string' && typeof fields.code === 'string' && SQLSTATE_PATTERN.test(fields.code) ? fields.code : undefined;
}

// A unique violation (SQLSTATE 23505) that no statement mapped to a domain error.
export function isUniqueViolation(error: unknown): boolean {
  return constraintViolationOf(error)?.kind === 'unique';
}
