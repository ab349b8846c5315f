import { json } from '@engage/platform';

const { uuid, text, at, integer, arrayOf, object, nullable, oneOfValues } = json;

// An import job (csv-import.service.ts): counts so far, the first row errors, and `error` when it stopped.
export const IMPORT_JOB = object({
  id: uuid,
  entity: oneOfValues(['contacts', 'companies']),
  status: oneOfValues(['running', 'completed', 'failed']),
  processed: integer,
  created: integer,
  updated: integer,
  failed: integer,
  errors: arrayOf(object({ line: integer, error: text, code: text })),
  error: nullable(text),
  created_by: nullable(uuid),
  created_at: at,
  finished_at: nullable(at),
});
export const IMPORT_JOBS = object({ imports: arrayOf(IMPORT_JOB) });

// An export streams CSV text (text/csv; charset=utf-8).
export const CSV_FILE = text;
