import parsePhoneNumberFromString, { type CountryCode } from 'libphonenumber-js/max';
import { DomainError } from '@engage/shared-kernel';

// Chat-app addresses carry the number before "@s." (e.g. 201001234567@s.whatsapp.net).
const NETWORK_SUFFIX = /@s\..*$/i;

export const isCountryCode = (value: unknown): value is CountryCode => typeof value === 'string' && /^[A-Z]{2}$/.test(value);

// Any common written form -> E.164, or undefined: "+20 100 123 4567", "0020-100-123-4567",
// "(010) 0123 4567" with the organization's country, "201001234567@s.whatsapp.net".
export function toE164(raw: string, defaultCountry?: CountryCode): string | undefined {
  const cleaned = raw.replace(NETWORK_SUFFIX, '').trim();
  if (cleaned.length === 0 || cleaned.length > 40 || /[a-z]/i.test(cleaned)) return undefined;
  const digits = cleaned.replace(/\D/g, '');
  const candidates = cleaned.startsWith('+') ? [`+${digits}`] : digits.startsWith('00') ? [`+${digits.slice(2)}`] : [cleaned, `+${digits}`];
  for (const candidate of candidates) {
    // Without a country a number with no + anywhere cannot be read (the parser would throw and catch).
    if (!defaultCountry && !candidate.includes('+')) continue;
    const parsed = parsePhoneNumberFromString(candidate, candidate.startsWith('+') ? undefined : defaultCountry);
    if (parsed?.isValid()) return parsed.number;
  }
  return undefined;
}

export function normalizePhone(raw: unknown, defaultCountry?: CountryCode): string {
  if (typeof raw !== 'string') throw new DomainError('validation', 'contact.invalid_phone', 'phones must be strings');
  const e164 = toE164(raw, defaultCountry);
  if (!e164) throw new DomainError('validation', 'contact.invalid_phone', `"${raw.slice(0, 40)}" is not a valid phone number`, { phone: raw.slice(0, 40) });
  return e164;
}
