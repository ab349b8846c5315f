import { csvColumns, csvSafeText, DomainError, servedColumns, type SqlType, type TableDeclaration } from '@engage/shared-kernel';
import { COMPANIES } from './company';
import { CONTACTS } from './contact';

// CSV cells of contacts and companies. Lists (phones, emails, tags) are joined with "; " on export
// and split on ";" on import; custom_fields is JSON; booleans are true/false.

export type CsvEntity = 'contacts' | 'companies';

// The columns come from the tables' declarations: an export may write every served column but
// organization_id; an import writes the fields and reads back (then ignores) the other served ones.
const TABLES: Record<CsvEntity, TableDeclaration> = { contacts: CONTACTS, companies: COMPANIES };
const CSV = { contacts: csvColumns(CONTACTS), companies: csvColumns(COMPANIES) };
export const CSV_COLUMNS: Record<CsvEntity, readonly string[]> = { contacts: CSV.contacts.export, companies: CSV.companies.export };
const IMPORTED: Record<CsvEntity, ReadonlySet<string>> = { contacts: new Set(CSV.contacts.import), companies: new Set(CSV.companies.import) };
const ALIASES: Record<string, string> = { ...CSV.contacts.aliases, ...CSV.companies.aliases };
// How a cell is read, by column (the same name has the same type in both tables, checked here).
const CELL_TYPES: Record<string, SqlType> = { ...CSV.contacts.types };
for (const [name, type] of Object.entries(CSV.companies.types)) {
  if (CELL_TYPES[name] && CELL_TYPES[name] !== type) throw new Error(`CSV column ${name} has two types`);
  CELL_TYPES[name] = type;
}

const csvError = (code: string, message: string, details?: Record<string, unknown>) => new DomainError('validation', `import.${code}`, message, details);

// The header row mapped to field names (null = ignored column); an unknown column fails the
// import before any row is written, so a misspelt header never drops a column silently.
export function importColumns(entity: CsvEntity, header: string[]): (string | null)[] {
  const mapped = header.map((raw) => {
    const name = raw.trim().toLowerCase().replace(/\s+/g, '_');
    return ALIASES[name] ?? name;
  });
  // A header cell left empty (a trailing comma from a spreadsheet) names no column: ignored, as are
  // served columns an import does not write (id, timestamps).
  const served = servedColumns(TABLES[entity]);
  const ignored = (name: string) => name !== '' && served.includes(name) && !IMPORTED[entity].has(name);
  const unknown = mapped.filter((name) => name !== '' && !CSV_COLUMNS[entity].includes(name) && !ignored(name));
  if (unknown.length > 0)
    throw csvError('unknown_column', `unknown ${entity} column ${unknown.join(', ')}; known: ${CSV_COLUMNS[entity].join(', ')}`, { columns: unknown });
  const duplicate = mapped.find((name, i) => name !== '' && mapped.indexOf(name) !== i);
  if (duplicate) throw csvError('duplicate_column', `column ${duplicate} appears twice`);
  return mapped.map((name) => (name === '' || ignored(name) ? null : name));
}

// One parsed row -> the input of the entity's create/update: empty cells are left out (an import
// never blanks a field), lists split, booleans, numbers and JSON read.
export function rowInput(columns: (string | null)[], cells: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = (cells[i] ?? '').trim();
    if (column === null || cell === '') return;
    const type = CELL_TYPES[column];
    if (type === 'text[]')
      input[column] = cell
        .split(';')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    else if (type === 'boolean') input[column] = parseBoolean(cell, column);
    else if (type === 'numeric' || type === 'integer' || type === 'double precision') input[column] = parseNumber(cell, column);
    else if (type === 'jsonb') input[column] = parseJson(cell, column);
    else input[column] = cell;
  });
  return input;
}

function parseBoolean(cell: string, column: string): boolean {
  const value = cell.toLowerCase();
  if (['true', 'yes', 'y', '1'].includes(value)) return true;
  if (['false', 'no', 'n', '0'].includes(value)) return false;
  throw csvError('invalid_cell', `${column} must be true or false, got "${cell.slice(0, 20)}"`);
}

function parseNumber(cell: string, column: string): number {
  const value = Number(cell.replace(/[\s,]/g, ''));
  if (!Number.isFinite(value)) throw csvError('invalid_cell', `${column} must be a number, got "${cell.slice(0, 30)}"`);
  return value;
}

function parseJson(cell: string, column: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    throw csvError('invalid_cell', `${column} must be a JSON object`);
  }
}

export function exportColumns(entity: CsvEntity, requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === '') return [...CSV_COLUMNS[entity]];
  const columns = requested
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const unknown = columns.filter((c) => !CSV_COLUMNS[entity].includes(c));
  if (unknown.length > 0)
    throw new DomainError('validation', 'export.unknown_column', `unknown ${entity} column ${unknown.join(', ')}; known: ${CSV_COLUMNS[entity].join(', ')}`, {
      columns: unknown,
    });
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
// prefixed with ' so it shows as text; plain numbers stay as they are. The rule is shared with the
// data API's CSV (shared-kernel: csv-cell.ts).
export function safeCellText(value: unknown): string {
  return csvSafeText(cellText(value));
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
