import { DomainError } from '@engage/shared-kernel';

// CSV cells of contacts and companies. Lists (phones, emails, tags) are joined with "; " on export
// and split on ";" on import; custom_fields is JSON; booleans are true/false.

export type CsvEntity = 'contacts' | 'companies';

const CONTACT_COLUMNS = ['id', 'first_name', 'last_name', 'phones', 'emails', 'tags', 'description', 'company_id', 'assignee_id', 'source', 'opt_in_status', 'custom_fields', 'created_at', 'updated_at'];
const COMPANY_COLUMNS = [
  'id', 'name', 'country', 'website', 'industry', 'address_street', 'address_city', 'address_state', 'address_postal_code', 'address_country',
  'phones', 'emails', 'company_size', 'annual_revenue', 'tags', 'notes', 'description', 'created_at', 'updated_at',
];
export const CSV_COLUMNS: Record<CsvEntity, readonly string[]> = { contacts: CONTACT_COLUMNS, companies: COMPANY_COLUMNS };
const LIST_COLUMNS = new Set(['phones', 'emails', 'tags']);
// Columns an import reads back from an export but never writes.
const IGNORED_ON_IMPORT = new Set(['id', 'organization_id', 'created_at', 'updated_at']);
const ALIASES: Record<string, string> = { phone: 'phones', email: 'emails', tag: 'tags' };

const csvError = (code: string, message: string, details?: Record<string, unknown>) => new DomainError('validation', `import.${code}`, message, details);

// The header row mapped to field names (null = ignored column); an unknown column fails the
// import before any row is written, so a misspelt header never drops a column silently.
export function importColumns(entity: CsvEntity, header: string[]): (string | null)[] {
  const mapped = header.map((raw) => {
    const name = raw.trim().toLowerCase().replace(/\s+/g, '_');
    return ALIASES[name] ?? name;
  });
  // A header cell left empty (a trailing comma from a spreadsheet) names no column: ignored.
  const unknown = mapped.filter((name) => name !== '' && !CSV_COLUMNS[entity].includes(name) && !IGNORED_ON_IMPORT.has(name));
  if (unknown.length > 0) throw csvError('unknown_column', `unknown ${entity} column ${unknown.join(', ')}; known: ${CSV_COLUMNS[entity].join(', ')}`, { columns: unknown });
  const duplicate = mapped.find((name, i) => name !== '' && mapped.indexOf(name) !== i);
  if (duplicate) throw csvError('duplicate_column', `column ${duplicate} appears twice`);
  return mapped.map((name) => (name === '' || IGNORED_ON_IMPORT.has(name) ? null : name));
}

// One parsed row -> the input of the entity's create/update: empty cells are left out (an import
// never blanks a field), lists split, booleans, numbers and JSON read.
export function rowInput(columns: (string | null)[], cells: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = (cells[i] ?? '').trim();
    if (column === null || cell === '') return;
    if (LIST_COLUMNS.has(column)) input[column] = cell.split(';').map((item) => item.trim()).filter((item) => item !== '');
    else if (column === 'opt_in_status') input[column] = parseBoolean(cell);
    else if (column === 'annual_revenue') input[column] = parseNumber(cell);
    else if (column === 'custom_fields') input[column] = parseJson(cell);
    else input[column] = cell;
  });
  return input;
}

function parseBoolean(cell: string): boolean {
  const value = cell.toLowerCase();
  if (['true', 'yes', 'y', '1'].includes(value)) return true;
  if (['false', 'no', 'n', '0'].includes(value)) return false;
  throw csvError('invalid_cell', `opt_in_status must be true or false, got "${cell.slice(0, 20)}"`);
}

function parseNumber(cell: string): number {
  const value = Number(cell.replace(/[\s,]/g, ''));
  if (!Number.isFinite(value)) throw csvError('invalid_cell', `annual_revenue must be a number, got "${cell.slice(0, 30)}"`);
  return value;
}

function parseJson(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    throw csvError('invalid_cell', 'custom_fields must be a JSON object');
  }
}

export function exportColumns(entity: CsvEntity, requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === '') return [...CSV_COLUMNS[entity]];
  const columns = requested.split(',').map((c) => c.trim()).filter((c) => c !== '');
  const unknown = columns.filter((c) => !CSV_COLUMNS[entity].includes(c));
  if (unknown.length > 0) throw new DomainError('validation', 'export.unknown_column', `unknown ${entity} column ${unknown.join(', ')}; known: ${CSV_COLUMNS[entity].join(', ')}`, { columns: unknown });
  if (new Set(columns).size !== columns.length) throw new DomainError('validation', 'export.duplicate_column', 'a column is named twice');
  return columns;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellText).join('; ');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// A cell a spreadsheet would read as a formula (OWASP's CSV injection list: = + - @ tab CR) is
// prefixed with ' so it shows as text; plain numbers (-5, +15551234567, a list of phones) cannot
// call anything and stay as they are, so phones and amounts read back unchanged.
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBERS = /^[+-]?\d+(\.\d+)?(; [+-]?\d+(\.\d+)?)*$/;

export function safeCellText(value: unknown): string {
  const text = cellText(value);
  return FORMULA_START.test(text) && !PLAIN_NUMBERS.test(text) ? `'${text}` : text;
}

// RFC 4180: a cell with a comma, quote, line break or edge space is quoted, quotes doubled.
export function csvLine(values: unknown[]): string {
  return `${values
    .map((value) => {
      const text = safeCellText(value);
      return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',')}\r\n`;
}
