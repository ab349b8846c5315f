import { DomainError } from './domain-error';

// Texts with fields of records (rules' actions, campaigns' messages): `{{contact.first_name}}`, with
// a fallback after a bar used when the value is missing, null or blank: `{{contact.last_name | there}}`.
// Rendering is one pass: an inserted value is never read as a placeholder again, and `$` patterns
// mean nothing. What a value may contain is left to where the text goes (an escape for HTML).

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*(?:\|([^{}|]*))?\}\}/g;
const MAX_FALLBACK = 200;

export interface Placeholder {
  field: string;
  fallback: string | undefined;
}

// A text refused: 400 with `code`, the path of the text first in the message and in details.path.
const templateInvalid = (code: string, path: string, problem: string, details: Record<string, unknown> = {}) =>
  new DomainError('validation', code, `${path}: ${problem}`, { path, ...details });

// The placeholders of a text, checked: each closed, naming a field `allowed` takes. A refusal is a
// 400 with `code` (each caller's own: a rule's, a campaign's).
export function checkTemplate(text: string, path: string, allowed: (field: string) => boolean, code = 'template.invalid'): Placeholder[] {
  const found: Placeholder[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const field = match[1];
    const fallback = match[2]?.trim();
    if (!allowed(field)) throw templateInvalid(code, path, `{{${field.slice(0, 80)}}} is not a field this text may use`, { field: field.slice(0, 120) });
    if (fallback !== undefined && fallback.length > MAX_FALLBACK)
      throw templateInvalid(code, path, `the fallback of {{${field}}} must be at most ${MAX_FALLBACK} characters`);
    found.push({ field, fallback });
  }
  const rest = text.replace(PLACEHOLDER, '');
  const open = rest.indexOf('{{');
  if (open >= 0)
    throw templateInvalid(
      code,
      path,
      `has a malformed placeholder near ${JSON.stringify(rest.slice(open, open + 30))}; write {{record.field}} or {{record.field | fallback}}`,
    );
  return found;
}

// A value as text: strings as they are, numbers and booleans written out, lists joined; anything
// else (an object) counts as missing.
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const items = value.filter((item) => typeof item === 'string' || typeof item === 'number').map(String);
    return items.length > 0 ? items.join(', ') : undefined;
  }
  return undefined;
}

// The text with each placeholder replaced by its field's value (through `escape`), or by its
// fallback when the value is missing, null or blank (an empty text when there is no fallback).
export function renderTemplate(text: string, lookup: (field: string) => unknown, escape: (value: string) => string = (value) => value): string {
  return text.replace(PLACEHOLDER, (_match, field: string, fallback: string | undefined) => {
    const value = asText(lookup(field));
    const chosen = value !== undefined && value.trim() !== '' ? value : (fallback?.trim() ?? '');
    return escape(chosen);
  });
}

// For texts that become HTML (an email body): the five characters that could start markup.
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);
