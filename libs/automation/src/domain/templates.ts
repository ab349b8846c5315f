import { ruleInvalid } from './rule-error';

// Texts of actions take fields of the event's records: `{{contact.first_name}}`, with a fallback
// after a bar used when the value is missing, null or blank: `{{contact.last_name | there}}`.
// Rendering is one pass: an inserted value is never read as a placeholder again, and `$` patterns
// mean nothing. What a value may contain is left to where the text goes (an escape for HTML).

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*(?:\|([^{}|]*))?\}\}/g;
const MAX_FALLBACK = 200;

export interface Placeholder {
  field: string;
  fallback: string | undefined;
}

// The placeholders of a text, checked: each closed, naming a field `allowed` takes.
export function checkTemplate(text: string, path: string, allowed: (field: string) => boolean): Placeholder[] {
  const found: Placeholder[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const field = match[1];
    const fallback = match[2]?.trim();
    if (!allowed(field)) throw ruleInvalid(path, `{{${field.slice(0, 80)}}} is not a field this rule's event has`, { field: field.slice(0, 120) });
    if (fallback !== undefined && fallback.length > MAX_FALLBACK)
      throw ruleInvalid(path, `the fallback of {{${field}}} must be at most ${MAX_FALLBACK} characters`);
    found.push({ field, fallback });
  }
  const rest = text.replace(PLACEHOLDER, '');
  const open = rest.indexOf('{{');
  if (open >= 0)
    throw ruleInvalid(
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
