// CSV injection (OWASP): a spreadsheet runs a cell that starts with = + - @, a tab or a carriage
// return as a formula (=HYPERLINK(...), +SUM(1,2), @SUM(1), -2+3+cmd|...). Such a cell is written
// with a ' in front, so it shows as text. Plain numbers (-5, +15551234567, 1.5e+20, a "; "-joined
// list of phones) cannot call anything and stay as they are, so phones and amounts read back
// unchanged. Every CSV the service writes applies this one rule: the CRM's exports and analytics
// through csvSafeText (csvLine in @engage/crm), the data API's text/csv answers in PostgreSQL from
// the same two patterns (data-api: sql/read.sql.ts).

// Both patterns are written so JavaScript and PostgreSQL (ARE) read them alike.
export const CSV_FORMULA_START = '[-=+@\\t\\r]';
const NUMBER = '[+-]?[0-9]+([.][0-9]+)?([eE][+-]?[0-9]+)?';
export const CSV_PLAIN_NUMBERS = `${NUMBER}(; ${NUMBER})*`;
export const CSV_ESCAPE = "'";

// Matches the (empty) start of a cell text to escape.
const FORMULA_CELL = new RegExp(`^(?!${CSV_PLAIN_NUMBERS}$)(?=${CSV_FORMULA_START})`);

// A cell's text with ' in front when a spreadsheet would read it as a formula.
export function csvSafeText(text: string): string {
  return FORMULA_CELL.test(text) ? `${CSV_ESCAPE}${text}` : text;
}
