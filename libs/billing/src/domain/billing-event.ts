import { isUuid, ValidationFailed } from '@engage/shared-kernel';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

// A subscription-state event of the storefront integration (§4.7), checked field by field.
// Optional fields: undefined = not sent (the stored value stays); trial dates may be sent as null
// to clear them. Unknown fields are ignored, as integrations add their own.
export interface BillingEvent {
  organizationId: string;
  planId: string;
  storeId: string;
  status: SubscriptionStatus;
  shopDomain?: string;
  currentPeriodStart?: Date;
  currentPeriodEnd?: Date;
  trialStart?: Date | null;
  trialEnd?: Date | null;
  cancelAtPeriodEnd?: boolean;
}

const MAX_TEXT = 255;
// An ISO 8601 / RFC 3339 date and time with its zone: YYYY-MM-DDTHH:MM[:SS[.fraction]] then Z or
// ±HH:MM (±HHMM). Each part is checked here, not by Date, which rolls impossible values over
// (2026-02-30 would become 2026-03-02 and make later valid events stale) and guesses a missing zone.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$/;
const TIMESTAMP_EXAMPLE = 'an ISO 8601 date and time with a zone, e.g. 2026-01-31T00:00:00Z';
const hasControl = (value: string) => [...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

const invalid = (field: string, message: string) => ValidationFailed('invalid_field', `${field} ${message}`, { field });

function text(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw invalid(field, 'is required');
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (value.length === 0 || value.length > MAX_TEXT) throw invalid(field, `must be 1 to ${MAX_TEXT} characters`);
  if (hasControl(value)) throw invalid(field, 'must not contain control characters');
  return value;
}

function storeId(body: Record<string, unknown>): string {
  const value = body.storefront_store_id;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw invalid('storefront_store_id', 'must be a whole number from 0 or a string');
    return String(value);
  }
  if (typeof value === 'string' && value.trim() !== value) throw invalid('storefront_store_id', 'must not start or end with spaces');
  return text(body, 'storefront_store_id');
}

function timestamp(body: Record<string, unknown>, field: string, nullable: boolean): Date | null | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (value === null) return nullable ? null : undefined;
  const parts = typeof value === 'string' ? ISO_8601.exec(value) : null;
  if (!parts) throw invalid(field, `must be ${TIMESTAMP_EXAMPLE}`);
  // Checked before Date.UTC, which reads the years 0-99 as 1900-1999.
  if (Number(parts[1]) < 1970) throw invalid(field, 'must be between the years 1970 and 9999');
  const at = strictInstant(parts);
  if (typeof at === 'string') throw invalid(field, `${at}: must be ${TIMESTAMP_EXAMPLE}`);
  if (at.getUTCFullYear() < 1970 || at.getUTCFullYear() > 9999) throw invalid(field, 'must be between the years 1970 and 9999');
  return at;
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

// The instant a matched timestamp names, or why it names none (a day the month lacks, hour 24,
// a leap second, an offset beyond ±23:59).
function strictInstant(parts: RegExpExecArray): Date | string {
  const [, yearText, monthText, dayText, hourText, minuteText, secondText = '0', fraction = '', sign, offsetHourText, offsetMinuteText] = parts;
  const [year, month, day, hour, minute, second] = [yearText, monthText, dayText, hourText, minuteText, secondText].map(Number);
  if (month < 1 || month > 12) return `has no month ${monthText}`;
  if (day < 1 || day > daysIn(year, month)) return `has no day ${dayText} in ${yearText}-${monthText}`;
  if (hour > 23 || minute > 59 || second > 59) return `has no time ${hourText}:${minuteText}${parts[6] === undefined ? '' : `:${secondText}`}`;
  const offsetHours = offsetHourText === undefined ? 0 : Number(offsetHourText);
  const offsetMinutes = offsetMinuteText === undefined ? 0 : Number(offsetMinuteText);
  if (offsetHours > 23 || offsetMinutes > 59) return `has no zone offset ${sign}${offsetHourText}:${offsetMinuteText}`;
  const millisecond = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  const offset = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(utc - offset);
}

export function parseBillingEvent(raw: Buffer): BillingEvent {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw ValidationFailed('invalid_json', `Request body is not valid JSON: ${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ValidationFailed('invalid_json', 'Request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const organizationId = text(fields, 'organization_id');
  if (!isUuid(organizationId)) throw invalid('organization_id', 'must be a uuid');
  const status = fields.status;
  if (typeof status !== 'string' || !(SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
    throw invalid('status', `must be one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
  }
  const event: BillingEvent = {
    organizationId: organizationId.toLowerCase(),
    planId: text(fields, 'plan_id'),
    storeId: storeId(fields),
    status: status as SubscriptionStatus,
  };
  if (fields.shop_domain !== undefined && fields.shop_domain !== null) event.shopDomain = text(fields, 'shop_domain');
  event.currentPeriodStart = timestamp(fields, 'current_period_start', false) ?? undefined;
  event.currentPeriodEnd = timestamp(fields, 'current_period_end', false) ?? undefined;
  event.trialStart = timestamp(fields, 'trial_start', true);
  event.trialEnd = timestamp(fields, 'trial_end', true);
  const cancel = fields.cancel_at_period_end;
  if (cancel !== undefined && cancel !== null && typeof cancel !== 'boolean') throw invalid('cancel_at_period_end', 'must be true or false');
  if (typeof cancel === 'boolean') event.cancelAtPeriodEnd = cancel;
  return event;
}
