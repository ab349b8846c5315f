import { isUuid } from './ids';

// Helpers for projections of event payloads (timeline entries): payloads arrive over the bus as
// JSON, so a projection reads them defensively.

export type PayloadObject = Record<string, unknown>;

const SNIPPET = 140;
const CONTENT_MAX = 1000;

export const isPayloadObject = (value: unknown): value is PayloadObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export const uuidOrNull = (value: unknown): string | null => (isUuid(value) ? value.toLowerCase() : null);

export const textOrNull = (value: unknown, max = CONTENT_MAX): string | null => (typeof value === 'string' ? value.slice(0, max) : null);

// One line of at most 140 characters, for a summary.
export const snippet = (value: unknown): string => {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  return text.length > SNIPPET ? `${text.slice(0, SNIPPET - 1)}…` : text;
};

// Keeps the listed fields that are strings (at most 1,000 characters), numbers, booleans or null:
// enough to render a row.
export const pickScalars = (record: PayloadObject, fields: string[]): PayloadObject =>
  Object.fromEntries(
    fields
      .filter((f) => ['string', 'number', 'boolean'].includes(typeof record[f]) || record[f] === null)
      .map((f) => [f, typeof record[f] === 'string' ? textOrNull(record[f]) : record[f]]),
  );
