import { DomainError } from '@engage/shared-kernel';
import { secretProblem } from './secret';

// Fields a caller may set; `secret`: a string sets it, null removes it, omitted on creation
// generates one (see docs/webhooks.md).
export interface ConfigurationFields {
  name?: string;
  url?: string;
  events?: string[];
  secret?: string | null;
  is_active?: boolean;
}

const WRITABLE = ['name', 'url', 'events', 'secret', 'is_active'];
// Columns a client may echo back (e.g. a row it read) and that are ignored.
const IGNORED = ['id', 'organization_id', 'created_at', 'updated_at', 'created_by', 'disabled_reason', 'failing_since'];
const MAX_URL = 2048;

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new DomainError('validation', 'webhook.invalid_field', message, { field, ...details });

// Shape checks only; the URL's safety is checked by the outbound client (the service does that).
// `kinds`: the webhook kinds a configuration may subscribe to (the catalogue's).
export function parseConfigurationFields(input: Record<string, unknown>, creating: boolean, kinds: readonly string[]): ConfigurationFields {
  const unknown = Object.keys(input).filter((key) => !WRITABLE.includes(key) && !IGNORED.includes(key));
  if (unknown.length > 0) throw invalid(unknown[0], `unknown field(s): ${unknown.join(', ')}; writable: ${WRITABLE.join(', ')}`, { unknown });
  const fields: ConfigurationFields = {};
  if ('name' in input || creating) {
    const name = input.name;
    if (typeof name !== 'string' || name.trim() === '') throw invalid('name', 'name is required and must be a non-empty string');
    if (name.length > 200) throw invalid('name', 'name must be at most 200 characters');
    fields.name = name.trim();
  }
  if ('url' in input || creating) {
    const url = input.url;
    if (typeof url !== 'string' || url === '') throw invalid('url', 'url is required and must be a string');
    if (url.length > MAX_URL) throw invalid('url', `url must be at most ${MAX_URL} characters`);
    fields.url = lowerScheme(url);
  }
  if ('events' in input || creating) fields.events = parseEvents(input.events, kinds);
  if ('secret' in input) {
    const secret = input.secret;
    if (secret !== null && typeof secret !== 'string') throw invalid('secret', 'secret must be a string or null');
    const problem = typeof secret === 'string' ? secretProblem(secret) : undefined;
    if (problem) throw invalid('secret', problem);
    fields.secret = secret as string | null;
  }
  if ('is_active' in input) {
    if (typeof input.is_active !== 'boolean') throw invalid('is_active', 'is_active must be true or false');
    fields.is_active = input.is_active;
  }
  return fields;
}

// The scheme in lower case (`HTTPS://` is the same address; the table's check and the SSRF-safe
// check that follows expect it so); the rest is checked where the address is.
const lowerScheme = (url: string) => url.replace(/^[a-z][a-z0-9+.-]*:/i, (scheme) => scheme.toLowerCase());

function parseEvents(value: unknown, kinds: readonly string[]): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string')) {
    throw invalid('events', 'events must be a non-empty array of event kinds', { valid: kinds });
  }
  const unknown = (value as string[]).filter((kind) => !kinds.includes(kind));
  if (unknown.length > 0) {
    throw new DomainError(
      'validation',
      'webhook.unknown_events',
      `unknown event kind(s): ${unknown
        .slice(0, 20)
        .map((k) => String(k).slice(0, 64))
        .join(', ')}; valid kinds: ${kinds.join(', ')}`,
      {
        field: 'events',
        unknown: unknown.slice(0, 20),
      },
    );
  }
  return [...new Set(value as string[])];
}
