import type { CountryCode } from 'libphonenumber-js';
import {
  column,
  completeFields,
  declareTable,
  DomainError,
  field,
  fieldNames,
  type FieldsOf,
  isEmailAddress,
  parseFields,
  type RowOf,
} from '@engage/shared-kernel';
import { normalizePhone } from './phone';
import { type FieldEnv, fieldRules } from './field-rules';

// The rules of contact fields (§2): plain functions, named in the declaration below.
const { invalid, uuidOrNull, customFields } = fieldRules('contact');

function checkText(value: unknown, name: string, max: number, nullable: boolean): string {
  if (typeof value !== 'string') throw invalid(name, `must be a string${nullable ? ' or null' : ''}`);
  if (value.length > max) throw invalid(name, `must be at most ${max} characters`);
  return value.trim();
}

export const text = (max: number) => (value: unknown, name: string) => checkText(value, name, max, false);
const textOrNull = (max: number) => (value: unknown, name: string) => (value === null ? null : checkText(value, name, max, true));

function list(maxItems: number, each: (item: unknown, env: FieldEnv) => string) {
  return (value: unknown, name: string, env: FieldEnv): string[] => {
    if (!Array.isArray(value)) throw invalid(name, 'must be an array of strings');
    if (value.length > maxItems) throw invalid(name, `may hold at most ${maxItems} items`);
    return [...new Set(value.map((item) => each(item, env)))];
  };
}

const email = (item: unknown): string => {
  const address = text(320)(item, 'emails[]').toLowerCase();
  if (!isEmailAddress(address)) throw invalid('emails', `holds an invalid address "${address.slice(0, 80)}"`);
  return address;
};

const tags = (value: unknown, name: string, env: FieldEnv) => list(50, (item) => text(50)(item, 'tags[]'))(value, name, env).filter((tag) => tag !== '');

function optIn(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalid(name, 'must be true or false');
  return value;
}

// Every column of contacts, declared once: the data API's columns, the writable fields and their
// rules and defaults, the CSV columns, the view and the types below all come from here; the
// migration creates the column and a test checks that the two agree (docs/crm.md).
export const CONTACTS = declareTable({
  name: 'contacts',
  columns: {
    id: column('uuid'),
    organization_id: column('uuid', { csv: 'none' }),
    first_name: field('text', text(100)),
    last_name: field('text', textOrNull(100), { nullable: true, default: () => null }),
    phones: field(
      'text[]',
      list(20, (item, env) => normalizePhone(item, env.country)),
      { default: () => [], csvAlias: 'phone' },
    ),
    emails: field('text[]', list(20, email), { default: () => [], csvAlias: 'email' }),
    tags: field('text[]', tags, { default: () => [], csvAlias: 'tag' }),
    description: field('text', text(5000), { default: () => '' }),
    company_id: field('uuid', uuidOrNull, { nullable: true, default: () => null }),
    assignee_id: field('uuid', uuidOrNull, { nullable: true, default: () => null }),
    source: field('text', text(100), { default: () => '' }),
    opt_in_status: field('boolean', optIn, { default: () => false }),
    custom_fields: field('jsonb', customFields, { default: () => ({}) }),
    created_at: column('timestamptz'),
    updated_at: column('timestamptz'),
  },
});

// The writable fields of a contact, as validated input, and a row as the driver returns it.
export type ContactFields = FieldsOf<typeof CONTACTS>;
export type ContactRow = RowOf<typeof CONTACTS>;
export const CONTACT_FIELDS = fieldNames(CONTACTS);

const unknownField = (fields: string[]) => new DomainError('validation', 'contact.unknown_field', `unknown contact field ${fields.join(', ')}`, { fields });

// Validates and normalises the fields present in `input`: phones to E.164, emails lower-cased,
// duplicates removed. Unknown fields are refused so a typo never silently drops data.
export function parseContactFields(input: Record<string, unknown>, country: CountryCode | undefined): Partial<ContactFields> {
  return parseFields(CONTACTS, input, { country }, unknownField);
}

export function parseNewContact(input: Record<string, unknown>, country: CountryCode | undefined): ContactFields {
  return completeNewContact(parseContactFields(input, country));
}

// Parsed fields of a new contact with the defaults filled in (first_name is required).
export function completeNewContact(fields: Partial<ContactFields>): ContactFields {
  return completeFields(CONTACTS, fields, (name) => invalid(name, 'is required'));
}
