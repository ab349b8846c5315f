import { column, declareTable, DomainError, field, fieldNames, type FieldsOf, parseFields, type RowOf, type ViewOf } from '@engage/shared-kernel';
import { fieldRules } from './field-rules';

// The rules of deal fields (§2): plain functions, named in the declaration below.
const { invalid, uuidOrNull, customFields } = fieldRules('deal');

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

const text =
  (max: number) =>
  (value: unknown, name: string): string => {
    if (typeof value !== 'string' || value.length > max) throw invalid(name, `must be a string of at most ${max} characters`);
    return value.trim();
  };

function title(value: unknown, name: string): string {
  const trimmed = text(200)(value, name);
  if (trimmed === '') throw invalid(name, 'must not be empty');
  return trimmed;
}

// Two decimals; a string of digits is read as the amount it writes.
function amount(input: unknown, name: string): number {
  const value = typeof input === 'string' && /^\d+(\.\d{1,2})?$/.test(input) ? Number(input) : input;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1e16) throw invalid(name, 'must be a non-negative number');
  return Math.round(value * 100) / 100;
}

function currency(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) throw invalid(name, 'must be a three-letter currency code');
  return value.toUpperCase();
}

function probability(value: unknown, name: string): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 100) throw invalid(name, 'must be a whole number from 0 to 100');
  return value as number;
}

function priority(value: unknown, name: string): Priority {
  const lower = typeof value === 'string' ? value.toLowerCase() : value;
  if (!(PRIORITIES as readonly unknown[]).includes(lower)) throw invalid(name, `must be one of ${PRIORITIES.join(', ')}`);
  return lower as Priority;
}

function closeDate(value: unknown, name: string): string | null {
  if (value !== null && (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))) {
    throw invalid(name, 'must be a date YYYY-MM-DD or null');
  }
  return value;
}

function tags(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.length > 50 || value.some((t) => typeof t !== 'string' || t.length > 50)) {
    throw invalid(name, 'must be an array of at most 50 short strings');
  }
  return [...new Set((value as string[]).map((t) => t.trim()).filter((t) => t !== ''))];
}

// Every column of deals, declared once (see CONTACTS in contact.ts). pipeline_id and stage are
// taken in writes but resolved against the pipeline by the service (no rule here); stage_id,
// position and last_activity_at follow from them.
export const DEALS = declareTable({
  name: 'deals',
  columns: {
    id: column('uuid'),
    organization_id: column('uuid'),
    title: field('text', title),
    description: field('text', text(5000), { default: () => '' }),
    pipeline_id: column('uuid', { api: 'write' }),
    stage_id: column('uuid'),
    stage: column('text', { api: 'write' }),
    contact_id: field('uuid', uuidOrNull, { nullable: true, default: () => null }),
    company_id: field('uuid', uuidOrNull, { nullable: true, default: () => null }),
    owner_id: field('uuid', uuidOrNull, { nullable: true, default: () => null }),
    value: field('numeric', amount, { default: () => 0, select: 'value::float8 AS value' }),
    currency: field('text', currency, { default: () => 'USD' }),
    probability: field('integer', probability, { default: () => 0 }),
    priority: field('text', priority, { default: () => 'medium' as Priority }),
    source: field('text', text(100), { default: () => '' }),
    expected_close_date: field('date', closeDate, {
      nullable: true,
      default: () => null,
      select: `to_char(expected_close_date, 'YYYY-MM-DD') AS expected_close_date`,
    }),
    notes: field('text', text(10000), { default: () => '' }),
    tags: field('text[]', tags, { default: () => [] as string[] }),
    custom_fields: field('jsonb', customFields, { default: () => ({}) }),
    position: column('double precision'),
    last_activity_at: column('timestamptz'),
    created_at: column('timestamptz'),
    updated_at: column('timestamptz'),
    // Kept by the database for the published view (crm_deal_facts), not served on deals.
    closed_at: column('timestamptz', { nullable: true, api: 'hidden' }),
  },
});

// Writable deal fields other than stage and pipeline, which are resolved against the pipeline.
export type DealFields = FieldsOf<typeof DEALS>;
export type DealRow = RowOf<typeof DEALS>;
export type DealView = ViewOf<typeof DEALS>;
export const DEAL_FIELDS = fieldNames(DEALS);

const unknownField = (fields: string[]) => new DomainError('validation', 'deal.unknown_field', `unknown deal field ${fields.join(', ')}`, { fields });

export function parseDealFields(input: Record<string, unknown>): Partial<DealFields> {
  return parseFields(DEALS, input, undefined, unknownField);
}
