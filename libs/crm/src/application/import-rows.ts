import type { CountryCode } from 'libphonenumber-js';
import { DomainError } from '@engage/shared-kernel';
import { sqlStateOf } from '@engage/platform';
import { normalizePhone } from '../domain/phone';

// Shared pieces of the CSV import paths (set-based batches and the per-row path).

export interface ImportRowError {
  line: number;
  error: string;
  code: string;
}

export interface ImportRow {
  line: number;
  cells: string[];
}

export interface ImportOutcome {
  created: number;
  updated: number;
  errors: ImportRowError[];
}

export interface ExistingLists {
  phones: string[];
  emails: string[];
  tags: string[];
}

// Phones in E.164 (an invalid one fails the row, naming it) and emails lower-cased, for matching.
export function matchKeys(input: Record<string, unknown>, country: CountryCode | undefined): { phones: string[]; emails: string[] } {
  const phones = Array.isArray(input.phones) ? input.phones.map((phone) => normalizePhone(phone, country)) : [];
  const emails = Array.isArray(input.emails) ? input.emails.map((email) => String(email).trim().toLowerCase()) : [];
  return { phones, emails };
}

// An import adds to lists rather than replacing them, so nothing the record already had is lost.
export function unionLists(input: Record<string, unknown>, existing: ExistingLists, phones: string[], emails: string[]): Record<string, unknown> {
  const out = { ...input };
  if (phones.length > 0) out.phones = [...new Set([...existing.phones, ...phones])];
  if (emails.length > 0) out.emails = [...new Set([...existing.emails, ...emails])];
  if (Array.isArray(input.tags)) out.tags = [...new Set([...existing.tags, ...(input.tags as string[])])];
  return out;
}

export function rowError(line: number, error: unknown): ImportRowError {
  if (error instanceof DomainError) return { line, error: error.message, code: error.code };
  const sqlState = sqlStateOf(error);
  return { line, error: `the row could not be saved${sqlState ? ` (SQLSTATE ${sqlState})` : ''}`, code: 'import.row_failed' };
}
