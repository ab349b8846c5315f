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
  type ViewOf,
} from '@engage/shared-kernel';
import { normalizePhone } from './phone';
import { type FieldEnv, fieldRules } from './field-rules';

// The rules of company fields (the §4.6 create fields plus the attributes of §2): plain functions.
const { invalid } = fieldRules('company');

function text(max: number) {
  return (value: unknown, name: string): string => {
    if (typeof value !== 'string') throw invalid(name, 'must be a string');
    if (value.length > max) throw invalid(name, `must be at most ${max} characters`);
    return value.trim();
  };
}

function name(value: unknown, field: string): string {
  const trimmed = text(200)(value, field);
  if (trimmed === '') throw invalid(field, 'must not be empty');
  return trimmed;
}

// Lists of at most 50 strings, trimmed, empty items dropped, duplicates removed.
function list(each: (items: string[], field: string, env: FieldEnv) => string[]) {
  return (value: unknown, field: string, env: FieldEnv): string[] => {
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string') || value.length > 50) {
      throw invalid(field, 'must be an array of at most 50 strings');
    }
    return [
      ...new Set(
        each(
          (value as string[]).map((item) => item.trim()).filter((item) => item !== ''),
          field,
          env,
        ),
      ),
    ];
  };
}

const phones = list((items, _field, env) => items.map((item) => normalizePhone(item, env.country)));
const emails = list((items) => {
  const bad = items.find((item) => !isEmailAddress(item));
  if (bad !== undefined) throw invalid('emails', `holds an invalid address "${bad.slice(0, 80)}"`);
  return items.map((item) => item.toLowerCase());
});
const tags = list((items) => items);

function revenue(value: unknown, field: string): number | null {
  if (value !== null && (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1e16)) {
    throw invalid(field, 'must be a non-negative number or null');
  }
  return value;
}

const blank = { default: () => '' };
const none = () => [] as string[];

// Every column of companies, declared once (see CONTACTS in contact.ts).
export const COMPANIES = declareTable({
  name: 'companies',
  columns: {
    id: column('uuid'),
    organization_id: column('uuid', { csv: 'none' }),
    name: field('text', name),
    country: field('text', text(100), blank),
    website: field('text', text(2048), blank),
    industry: field('text', text(100), blank),
    address_street: field('text', text(200), blank),
    address_city: field('text', text(100), blank),
    address_state: field('text', text(100), blank),
    address_postal_code: field('text', text(20), blank),
    address_country: field('text', text(100), blank),
    phones: field('text[]', phones, { default: none, csvAlias: 'phone' }),
    emails: field('text[]', emails, { default: none, csvAlias: 'email' }),
    company_size: field('text', text(50), blank),
    annual_revenue: field('numeric', revenue, { nullable: true, default: () => null, select: 'annual_revenue::float8 AS annual_revenue' }),
    tags: field('text[]', tags, { default: none, csvAlias: 'tag' }),
    notes: field('text', text(10000), blank),
    description: field('text', text(5000), blank),
    created_at: column('timestamptz'),
    updated_at: column('timestamptz'),
  },
});

export type CompanyFields = FieldsOf<typeof COMPANIES>;
export type CompanyRow = RowOf<typeof COMPANIES>;
export type CompanyView = ViewOf<typeof COMPANIES>;
export const COMPANY_FIELDS = fieldNames(COMPANIES);

const unknownField = (fields: string[]) => new DomainError('validation', 'company.unknown_field', `unknown company field ${fields.join(', ')}`, { fields });

export function parseCompanyFields(input: Record<string, unknown>, country: CountryCode | undefined): Partial<CompanyFields> {
  return parseFields(COMPANIES, input, { country }, unknownField);
}

// Parsed fields of a new company with the defaults filled in (name is required).
export function completeNewCompany(fields: Partial<CompanyFields>): CompanyFields {
  return completeFields(COMPANIES, fields, (field) => invalid(field, 'is required'));
}
