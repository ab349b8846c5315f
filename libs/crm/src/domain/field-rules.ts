import type { CountryCode } from 'libphonenumber-js';
import { DomainError, isUuid } from '@engage/shared-kernel';

// Rules shared by the CRM's field declarations (contacts, companies, deals): plain functions of
// (value, field name, env) that return the normalised value or throw `<entity>.invalid_field`.

// What field rules read from the request: the organization's default country (phones).
export interface FieldEnv {
  country: CountryCode | undefined;
}

export const MAX_CUSTOM_FIELDS_BYTES = 16_384;

export function fieldRules(entity: 'contact' | 'company' | 'deal') {
  const invalid = (field: string, rule: string) => new DomainError('validation', `${entity}.invalid_field`, `${field} ${rule}`, { field });
  return {
    invalid,
    uuidOrNull(value: unknown, field: string): string | null {
      if (value === null) return null;
      if (!isUuid(value)) throw invalid(field, 'must be a UUID or null');
      return value.toLowerCase();
    },
    customFields(value: unknown, field: string): Record<string, unknown> {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(field, 'must be an object');
      if (JSON.stringify(value).length > MAX_CUSTOM_FIELDS_BYTES) throw invalid(field, `must be at most ${MAX_CUSTOM_FIELDS_BYTES} bytes of JSON`);
      return value as Record<string, unknown>;
    },
  };
}
