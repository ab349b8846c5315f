import { DomainError, isUuid } from '@engage/shared-kernel';

// Writable deal fields (§2) other than stage and pipeline, which are resolved against the pipeline.
export interface DealFields {
  title: string;
  description: string;
  contact_id: string | null;
  company_id: string | null;
  owner_id: string | null;
  value: number;
  currency: string;
  probability: number;
  priority: 'low' | 'medium' | 'high' | 'urgent';
  source: string;
  expected_close_date: string | null;
  notes: string;
  tags: string[];
  custom_fields: Record<string, unknown>;
}

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
const FIELDS = ['title', 'description', 'contact_id', 'company_id', 'owner_id', 'value', 'currency', 'probability', 'priority', 'source', 'expected_close_date', 'notes', 'tags', 'custom_fields'];
const MOVING = ['stage', 'pipeline_id'];
const READ_ONLY = ['id', 'organization_id', 'created_at', 'updated_at', 'stage_id', 'position', 'last_activity_at'];

const invalid = (field: string, rule: string) => new DomainError('validation', 'deal.invalid_field', `${field} ${rule}`, { field });

export function parseDealFields(input: Record<string, unknown>): Partial<DealFields> {
  const unknown = Object.keys(input).filter((key) => !FIELDS.includes(key) && !MOVING.includes(key) && !READ_ONLY.includes(key));
  if (unknown.length > 0) throw new DomainError('validation', 'deal.unknown_field', `unknown deal field ${unknown.join(', ')}`, { fields: unknown });
  const out: Record<string, unknown> = {};
  const text = (field: string, max: number) => {
    if (!(field in input)) return;
    if (typeof input[field] !== 'string' || (input[field] as string).length > max) throw invalid(field, `must be a string of at most ${max} characters`);
    out[field] = (input[field] as string).trim();
  };
  text('title', 200);
  text('description', 5000);
  text('source', 100);
  text('notes', 10000);
  if ('title' in out && out.title === '') throw invalid('title', 'must not be empty');
  for (const field of ['contact_id', 'company_id', 'owner_id']) {
    if (!(field in input)) continue;
    if (input[field] !== null && !isUuid(input[field])) throw invalid(field, 'must be a UUID or null');
    out[field] = input[field] === null ? null : (input[field] as string).toLowerCase();
  }
  if ('value' in input) {
    const value = typeof input.value === 'string' && /^\d+(\.\d{1,2})?$/.test(input.value) ? Number(input.value) : input.value;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1e16) throw invalid('value', 'must be a non-negative number');
    out.value = Math.round(value * 100) / 100;
  }
  if ('currency' in input) {
    if (typeof input.currency !== 'string' || !/^[A-Za-z]{3}$/.test(input.currency)) throw invalid('currency', 'must be a three-letter currency code');
    out.currency = input.currency.toUpperCase();
  }
  if ('probability' in input) {
    if (!Number.isInteger(input.probability) || (input.probability as number) < 0 || (input.probability as number) > 100) throw invalid('probability', 'must be a whole number from 0 to 100');
    out.probability = input.probability;
  }
  if ('priority' in input) {
    const priority = typeof input.priority === 'string' ? input.priority.toLowerCase() : input.priority;
    if (!(PRIORITIES as readonly unknown[]).includes(priority)) throw invalid('priority', `must be one of ${PRIORITIES.join(', ')}`);
    out.priority = priority;
  }
  if ('expected_close_date' in input) {
    const date = input.expected_close_date;
    if (date !== null && (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)))) throw invalid('expected_close_date', 'must be a date YYYY-MM-DD or null');
    out.expected_close_date = date;
  }
  if ('tags' in input) {
    if (!Array.isArray(input.tags) || input.tags.length > 50 || input.tags.some((t) => typeof t !== 'string' || t.length > 50)) throw invalid('tags', 'must be an array of at most 50 short strings');
    out.tags = [...new Set((input.tags as string[]).map((t) => t.trim()).filter((t) => t !== ''))];
  }
  if ('custom_fields' in input) {
    const value = input.custom_fields;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('custom_fields', 'must be an object');
    if (JSON.stringify(value).length > 16_384) throw invalid('custom_fields', 'must be at most 16384 bytes of JSON');
    out.custom_fields = value;
  }
  return out as Partial<DealFields>;
}
