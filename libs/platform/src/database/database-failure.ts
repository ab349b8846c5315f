// The one shape of a database error. Whatever fails in Database (a statement of a tenant or system
// transaction, systemQuery, BEGIN/COMMIT, getting a pooled connection) reaches callers as a
// DatabaseFailure, unless the transaction API turned it into what it means: a domain error or a
// ConstraintViolationError (constraint-violation.ts). The fields are PostgreSQL's error report, on
// the error itself: no caller reads the driver's error or a library's wrapper of it. Recognise an
// error by its SQLSTATE (`code`, sqlStateOf, isUniqueViolation), never by its message text.
export class DatabaseFailure extends Error {
  // The SQLSTATE when PostgreSQL refused the statement ('23505'); otherwise the driver's or the
  // socket's own code (ECONNRESET, ERR_STRING_TOO_LONG) when it has one.
  readonly code: string | undefined;
  // PostgreSQL's severity (ERROR, FATAL): set only when the server answered, so a socket's
  // five-letter code (EPIPE) is never taken for a SQLSTATE.
  readonly severity: string | undefined;
  readonly constraint: string | undefined;
  readonly schema: string | undefined;
  readonly table: string | undefined;
  readonly column: string | undefined;
  readonly dataType: string | undefined;
  // PostgreSQL's DETAIL may repeat row values: never logged, and shown to a client only where a
  // contract says so (the data API's).
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  readonly position: string | undefined;
  readonly routine: string | undefined;
  // The statement's text, never its parameters (they carry secrets and personal data); undefined
  // when no statement ran (no connection could be had).
  readonly query: string | undefined;
  // Set when the failure came while opening a connection: nothing ran.
  readonly connecting: boolean;

  // cause: what the driver threw (pg's DatabaseError for PostgreSQL's refusals).
  constructor(cause: unknown, query?: string, connecting = false) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'DatabaseFailure';
    const report = (typeof cause === 'object' && cause !== null ? cause : {}) as Record<string, unknown>;
    const field = (key: string) => (typeof report[key] === 'string' ? (report[key] as string) : undefined);
    this.code = field('code');
    this.severity = field('severity');
    this.constraint = field('constraint');
    this.schema = field('schema');
    this.table = field('table');
    this.column = field('column');
    this.dataType = field('dataType');
    this.detail = field('detail');
    this.hint = field('hint');
    this.position = field('position');
    this.routine = field('routine');
    this.query = query;
    this.connecting = connecting;
  }

  // The SQLSTATE, only when PostgreSQL answered.
  get sqlState(): string | undefined {
    return this.severity !== undefined && this.code !== undefined && SQLSTATE_PATTERN.test(this.code) ? this.code : undefined;
  }
}

export const SQLSTATE_PATTERN = /^[0-9A-Z]{5}$/;

// A failure as its one shape (one already shaped stays as it is).
export function asDatabaseFailure(error: unknown, query?: string, connecting = false): DatabaseFailure {
  return error instanceof DatabaseFailure ? error : new DatabaseFailure(error, query, connecting);
}
