import { DomainError, type ErrorKind } from '@engage/shared-kernel';

// The platform maps kinds to statuses; these are the ones PostgREST answers with.
const KIND_OF_STATUS: Record<number, ErrorKind> = {
  400: 'validation',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  416: 'range_not_satisfiable',
};

export function pgrstError(code: string, status: number, message: string, details?: string, hint?: string): DomainError {
  const kind = KIND_OF_STATUS[status];
  if (!kind) throw new Error(`pgrstError: no error kind for status ${status}`);
  return new DomainError(kind, code, message, details, hint);
}

// PostgREST's parsec errors: `"failed to parse filter (0)" (line 1, column 2)`.
export const parseError = (what: string, input: string, column: number, expected?: string): DomainError =>
  pgrstError('PGRST100', 400, `"failed to parse ${what} (${input})" (line 1, column ${column})`, expected ? `expecting ${expected}` : undefined);

export const unknownColumn = (table: string, column: string): DomainError => pgrstError('42703', 400, `column ${table}.${column} does not exist`);

// What PostgreSQL would answer for a value that does not fit the column type.
export const invalidValue = (typeName: string, value: string, hint?: string): DomainError =>
  pgrstError('22P02', 400, `invalid input syntax for type ${typeName}: "${value}"`, undefined, hint);

// PostgREST maps SQLSTATE 42883 (undefined function/operator) to 404.
export const undefinedOperator = (left: string, operator: string): DomainError =>
  pgrstError(
    '42883',
    404,
    `operator does not exist: ${left} ${operator} unknown`,
    undefined,
    'No operator matches the given name and argument types. You might need to add explicit type casts.',
  );

export const PLUS_HINT = 'A "+" in the query string means a space: send "+" as %2B';
