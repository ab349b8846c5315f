import pino from 'pino';

// Logs never carry secrets or personal data. Errors are the risk: a failed query carries its
// parameters (password hashes, tokens, message texts, emails) and PostgreSQL's detail repeats row
// values, so errors are logged through an allow-list of fields and their text is scrubbed.

// Fields of a PostgreSQL error (the platform's DatabaseFailure, as pg's DatabaseError) that name things, never hold values.
const SAFE_DB_FIELDS = ['code', 'severity', 'routine', 'schema', 'table', 'column', 'dataType', 'constraint', 'position'] as const;
const MAX_QUERY = 1000;
const MAX_DEPTH = 3;

const SCRUBBERS: [RegExp, string][] = [
  [/\$argon2(?:id|i|d)\$[^\s"',]*/g, '[hash]'],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, '[jwt]'],
  [/\beng_[A-Za-z0-9_-]{8,}/g, '[api key]'],
  [/[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[^\s@"'<>(),;:]+/g, '[email]'],
  [/\\x[0-9a-fA-F]{16,}/g, '[bytes]'],
];

// Cheap first look, so the usual line (no secret in it) costs one test.
const MAY_HOLD_SECRET = /[@$]|eyJ|eng_|\\x/;

// Masks what looks like a secret or an address in free text (messages, stacks, SQL).
export function scrubText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SCRUBBERS) out = out.replace(pattern, replacement);
  return out;
}

// SQLSTATE class 22 (data exception) messages quote the offending value: `invalid input syntax for type uuid: "..."`.
const quotesValues = (code: unknown) => typeof code === 'string' && code.startsWith('22');

function safeMessage(message: string, code: unknown): string {
  const scrubbed = scrubText(message);
  return quotesValues(code) ? scrubbed.replace(/"[^"]*"/g, '"[value]"') : scrubbed;
}

type Loggable = Record<string, unknown>;

// pino's `err` serializer: type, scrubbed message and stack, and only the fields known to be safe.
// Never the query's parameters, PostgreSQL's detail/where/internalQuery, or any other own property.
export function serializeError(value: unknown, depth = 0): Loggable {
  if (!(value instanceof Error)) return { type: typeof value };
  const error = value as Error & Record<string, unknown>;
  const code = error.code;
  const message = safeMessage(error.message, code);
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const out: Loggable = { type: error.constructor?.name ?? 'Error', message, stack: [`${error.name}: ${message}`, ...frames.map(scrubText)].join('\n') };
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  for (const field of SAFE_DB_FIELDS) {
    if (field !== 'code' && (typeof error[field] === 'string' || typeof error[field] === 'number')) out[field] = error[field];
  }
  // A ConstraintViolationError names its kind and column in `violation` (and keeps the detail, which is left out).
  const violation = error.violation as Record<string, unknown> | undefined;
  for (const field of ['kind', 'constraint', 'column']) {
    if (typeof violation?.[field] === 'string') out[field] = violation[field];
  }
  if (typeof error.query === 'string') out.query = scrubText(error.query.slice(0, MAX_QUERY));
  if (typeof error.statusCode === 'number') out.statusCode = error.statusCode;
  if (depth < MAX_DEPTH) {
    if (error.cause !== undefined) out.cause = serializeError(error.cause, depth + 1);
    if (Array.isArray(error.errors)) out.errors = error.errors.slice(0, 5).map((inner) => serializeError(inner, depth + 1));
  }
  return out;
}

// Keys that hold secrets or personal data, redacted at the top of a log object and in headers.
// Named paths only: fast-redact's wildcards cost about 25 µs a line, more than the line itself.
const SECRET_KEYS = [
  ...['password', 'password_hash', 'token', 'access_token', 'refresh_token', 'api_key', 'apikey', 'authorization'],
  ...['email', 'parameters', 'text', 'body'],
];
const HEADER_KEYS = ['authorization', 'apikey', '["x-api-key"]', 'cookie'];
const headerPath = (at: string, key: string) => (key.startsWith('[') ? `${at}${key}` : `${at}.${key}`);
const REDACT_PATHS = [...SECRET_KEYS, ...['headers', 'req.headers'].flatMap((at) => HEADER_KEYS.map((key) => headerPath(at, key)))];

export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    serializers: { err: serializeError, error: serializeError },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Message strings too: a line such as `notice to ${address} failed` must not carry the address.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
