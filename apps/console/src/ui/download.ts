import { apiErrorFrom } from '../api/errors';
import { supabase } from '../api/supabase';

// Saves a blob under a file name through a temporary link (the browser's own download).
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// An export the API writes itself (`Accept: text/csv`), saved as a file; a refusal is the API's error.
export async function downloadCsv(path: string, name: string): Promise<void> {
  const token = (await supabase.auth.getSession()).data.session?.access_token;
  const response = await fetch(path, { headers: { accept: 'text/csv', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  if (!response.ok) {
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text };
    }
    throw apiErrorFrom(response.status, body);
  }
  saveFile(await response.blob(), name);
}

// Rows written as CSV in the browser, for figures the API has no export of (RFC 4180 quoting; a
// cell starting with = + - @ is prefixed with ' so a spreadsheet does not run it as a formula).
export function csvText(rows: (string | number | null)[][]): string {
  const cell = (value: string | number | null) => {
    if (value === null) return '';
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
