import type { CountryCode } from 'libphonenumber-js';
import { DomainError } from '@engage/shared-kernel';
import { normalizePhone } from './phone';

// The writable fields of a company: the §4.6 create fields plus the attributes of §2.
export interface CompanyFields {
  name: string;
  country: string;
  website: string;
  industry: string;
  address_street: string;
  address_city: string;
  address_state: string;
  address_postal_code: string;
  address_country: string;
  phones: string[];
  emails: string[];
  company_size: string;
  annual_revenue: number | null;
  tags: string[];
  notes: string;
  description: string;
}

const TEXT_LIMITS: Partial<Record<keyof CompanyFields, number>> = {
  name: 200, country: 100, website: 2048, industry: 100, address_street: 200, address_city: 100, address_state: 100,
  address_postal_code: 20, address_country: 100, company_size: 50, notes: 10000, description: 5000,
};
const LISTS = ['phones', 'emails', 'tags'] as const;
export const COMPANY_FIELDS = [...Object.keys(TEXT_LIMITS), ...LISTS, 'annual_revenue'] as (keyof CompanyFields)[];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const invalid = (field: string, rule: string) => new DomainError('validation', 'company.invalid_field', `${field} ${rule}`, { field });

export function parseCompanyFields(input: Record<string, unknown>, country: CountryCode | undefined): Partial<CompanyFields> {
  const unknown = Object.keys(input).filter((key) => !(COMPANY_FIELDS as string[]).includes(key) && !['id', 'organization_id', 'created_at', 'updated_at'].includes(key));
  if (unknown.length > 0) throw new DomainError('validation', 'company.unknown_field', `unknown company field ${unknown.join(', ')}`, { fields: unknown });
  const out: Record<string, unknown> = {};
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    if (!(field in input)) continue;
    const value = input[field];
    if (typeof value !== 'string') throw invalid(field, 'must be a string');
    if (value.length > max!) throw invalid(field, `must be at most ${max} characters`);
    out[field] = value.trim();
  }
  for (const field of LISTS) {
    if (!(field in input)) continue;
    const value = input[field];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string') || value.length > 50) throw invalid(field, 'must be an array of at most 50 strings');
    const items = (value as string[]).map((item) => item.trim()).filter((item) => item !== '');
    if (field === 'phones') out.phones = [...new Set(items.map((item) => normalizePhone(item, country)))];
    else if (field === 'emails') {
      const bad = items.find((item) => !EMAIL.test(item));
      if (bad) throw invalid('emails', `holds an invalid address "${bad.slice(0, 80)}"`);
      out.emails = [...new Set(items.map((item) => item.toLowerCase()))];
    } else out.tags = [...new Set(items)];
  }
  if ('annual_revenue' in input) {
    const value = input.annual_revenue;
    if (value !== null && (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1e16)) throw invalid('annual_revenue', 'must be a non-negative number or null');
    out.annual_revenue = value;
  }
  if ('name' in out && out.name === '') throw invalid('name', 'must not be empty');
  return out as Partial<CompanyFields>;
}

// Parsed fields of a new company with the defaults filled in (name is required).
export function completeNewCompany(fields: Partial<CompanyFields>): CompanyFields {
  if (!fields.name) throw new DomainError('validation', 'company.invalid_field', 'name is required', { field: 'name' });
  return {
    country: '', website: '', industry: '', address_street: '', address_city: '', address_state: '', address_postal_code: '', address_country: '',
    phones: [], emails: [], company_size: '', annual_revenue: null, tags: [], notes: '', description: '', ...fields, name: fields.name,
  };
}
