import type { CountryCode } from 'libphonenumber-js';
import { DomainError, isUuid } from '@engage/shared-kernel';
import { normalizePhone } from './phone';

// The writable fields of a contact (§2), as validated input.
export interface ContactFields {
  first_name: string;
  last_name: string | null;
  phones: string[];
  emails: string[];
  tags: string[];
  description: string;
  company_id: string | null;
  assignee_id: string | null;
  source: string;
  opt_in_status: boolean;
  custom_fields: Record<string, unknown>;
}

export const CONTACT_FIELDS: readonly (keyof ContactFields)[] = [
  'first_name', 'last_name', 'phones', 'emails', 'tags', 'description', 'company_id', 'assignee_id', 'source', 'opt_in_status', 'custom_fields',
];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_CUSTOM_FIELDS_BYTES = 16_384;

const invalid = (field: string, rule: string) => new DomainError('validation', 'contact.invalid_field', `${field} ${rule}`, { field });

function text(value: unknown, field: string, max: number, nullable = false): string | null {
  if (value === null && nullable) return null;
  if (typeof value !== 'string') throw invalid(field, `must be a string${nullable ? ' or null' : ''}`);
  if (value.length > max) throw invalid(field, `must be at most ${max} characters`);
  return value.trim();
}

function list(value: unknown, field: string, maxItems: number, each: (item: unknown) => string): string[] {
  if (!Array.isArray(value)) throw invalid(field, 'must be an array of strings');
  if (value.length > maxItems) throw invalid(field, `may hold at most ${maxItems} items`);
  return [...new Set(value.map(each))];
}

function uuidOrNull(value: unknown, field: string): string | null {
  if (value === null) return null;
  if (!isUuid(value)) throw invalid(field, 'must be a UUID or null');
  return value.toLowerCase();
}

// Validates and normalises the fields present in `input`: phones to E.164, emails lower-cased,
// duplicates removed. Unknown fields are refused so a typo never silently drops data.
export function parseContactFields(input: Record<string, unknown>, country: CountryCode | undefined): Partial<ContactFields> {
  const unknown = Object.keys(input).filter((key) => !(CONTACT_FIELDS as readonly string[]).includes(key) && !['id', 'organization_id', 'created_at', 'updated_at'].includes(key));
  if (unknown.length > 0) throw new DomainError('validation', 'contact.unknown_field', `unknown contact field ${unknown.join(', ')}`, { fields: unknown });
  const out: Partial<ContactFields> = {};
  if ('first_name' in input) out.first_name = text(input.first_name, 'first_name', 100)!;
  if ('last_name' in input) out.last_name = text(input.last_name, 'last_name', 100, true);
  if ('phones' in input) out.phones = list(input.phones, 'phones', 20, (item) => normalizePhone(item, country));
  if ('emails' in input) {
    out.emails = list(input.emails, 'emails', 20, (item) => {
      const email = text(item, 'emails[]', 320)!.toLowerCase();
      if (!EMAIL.test(email)) throw invalid('emails', `holds an invalid address "${email.slice(0, 80)}"`);
      return email;
    });
  }
  if ('tags' in input) out.tags = list(input.tags, 'tags', 50, (item) => text(item, 'tags[]', 50)!).filter((tag) => tag !== '');
  if ('description' in input) out.description = text(input.description, 'description', 5000)!;
  if ('source' in input) out.source = text(input.source, 'source', 100)!;
  if ('company_id' in input) out.company_id = uuidOrNull(input.company_id, 'company_id');
  if ('assignee_id' in input) out.assignee_id = uuidOrNull(input.assignee_id, 'assignee_id');
  if ('opt_in_status' in input) {
    if (typeof input.opt_in_status !== 'boolean') throw invalid('opt_in_status', 'must be true or false');
    out.opt_in_status = input.opt_in_status;
  }
  if ('custom_fields' in input) {
    const value = input.custom_fields;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('custom_fields', 'must be an object');
    if (JSON.stringify(value).length > MAX_CUSTOM_FIELDS_BYTES) throw invalid('custom_fields', `must be at most ${MAX_CUSTOM_FIELDS_BYTES} bytes of JSON`);
    out.custom_fields = value as Record<string, unknown>;
  }
  return out;
}

export function parseNewContact(input: Record<string, unknown>, country: CountryCode | undefined): ContactFields {
  return completeNewContact(parseContactFields(input, country));
}

// Parsed fields of a new contact with the defaults filled in (first_name is required).
export function completeNewContact(fields: Partial<ContactFields>): ContactFields {
  if (!fields.first_name) throw invalid('first_name', 'is required');
  return {
    first_name: fields.first_name,
    last_name: fields.last_name ?? null,
    phones: fields.phones ?? [],
    emails: fields.emails ?? [],
    tags: fields.tags ?? [],
    description: fields.description ?? '',
    company_id: fields.company_id ?? null,
    assignee_id: fields.assignee_id ?? null,
    source: fields.source ?? '',
    opt_in_status: fields.opt_in_status ?? false,
    custom_fields: fields.custom_fields ?? {},
  };
}
