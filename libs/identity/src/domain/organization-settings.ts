import { isSupportedCountry } from 'libphonenumber-js';
import { DomainError } from '@engage/shared-kernel';
import { MAX_INTERVALS_PER_DAY, parseBusinessHours, WEEKDAYS } from './business-hours';

// The organization settings (organizations.settings, one JSON object per organization), each declared
// once below with its checks. The admin CLI (set-org-setting: text values) and the HTTP API
// (/functions/v1/organization/settings: JSON values) both go through them, and a key not declared
// here cannot be set. Values are stored as the text the CLI takes, sealed ones as {sealed}; other
// contexts read them through OrganizationSettings. Adding a setting is one entry of
// ORGANIZATION_SETTINGS (docs/identity.md, "Organization settings").

export type JsonSchema = Record<string, unknown>;

// What a check may ask the database.
export interface SettingLookups {
  isTimeZone(name: string): Promise<boolean>;
}

export interface SettingDeclaration {
  // 'members': OWNER and ADMIN (and API keys) change it over HTTP; 'operator': only the admin CLI
  // sets it, HTTP shows it.
  readonly setBy: 'members' | 'operator';
  // A secret: sealed at rest, never shown (HTTP shows has_<key> and <key>_last4).
  readonly sealed: boolean;
  // The value over HTTP, in answers and in a PATCH (OpenAPI 3.0 JSON Schema).
  readonly schema: JsonSchema;
  // A JSON value (HTTP) as the text the CLI would be given; the checks below then apply to it.
  text(key: string, value: unknown): string;
  // The checks of a text, the same for the CLI and HTTP: a validation error naming the setting.
  check(key: string, text: string, lookups: SettingLookups): Promise<void> | void;
  // A stored (not sealed) value as answers show it: null when not valid, as readers treat it.
  show(stored: unknown): unknown;
}

// Any stored text: longer values are refused before a setting's own checks.
export const MAX_SETTING_TEXT = 4096;
// A sealed value shorter than this shows no last four characters (they would be most of it).
export const LAST4_MIN_LENGTH = 8;

export const invalidSetting = (key: string, message: string) => new DomainError('validation', 'validation_failed', message, { setting: key });

const asString = (rule: string) => (key: string, value: unknown) => {
  if (typeof value !== 'string') throw invalidSetting(key, `${key} must be ${rule}`);
  return value;
};

// Text matching a pattern (and a further test).
interface PlainText {
  setBy?: 'members' | 'operator';
  pattern: RegExp;
  maxLength: number;
  rule: string;
  example: string;
  also?: (text: string) => boolean;
}

function plainText(options: PlainText): SettingDeclaration {
  const { pattern, rule, also } = options;
  return {
    setBy: options.setBy ?? 'members',
    sealed: false,
    schema: { type: 'string', pattern: pattern.source, maxLength: options.maxLength, example: options.example },
    text: asString(rule),
    check: (key, text) => {
      if (!pattern.test(text) || (also && !also(text))) throw invalidSetting(key, `${key} must be ${rule}`);
    },
    show: (stored) => (typeof stored === 'string' ? stored : null),
  };
}

// An IANA time zone PostgreSQL knows (reports read dates in it with AT TIME ZONE).
const timeZone: SettingDeclaration = {
  setBy: 'members',
  sealed: false,
  schema: { type: 'string', maxLength: 64, example: 'Africa/Cairo' },
  text: asString('an IANA time zone name such as Africa/Cairo'),
  async check(key, text, lookups) {
    if (text.length > 64 || !(await lookups.isTimeZone(text))) {
      throw invalidSetting(key, `${key} ${JSON.stringify(text.slice(0, 64))} is not a known time zone (e.g. Africa/Cairo, UTC)`);
    }
  },
  show: (stored) => (typeof stored === 'string' ? stored : null),
};

// A whole number from 1 to max, stored as its digits (an integer over HTTP).
function wholeNumber(max: number, unit: string): SettingDeclaration {
  const rule = `a whole number of ${unit} from 1 to ${max}`;
  const valid = (text: string) => /^[1-9]\d{0,5}$/.test(text) && Number(text) <= max;
  return {
    setBy: 'members',
    sealed: false,
    schema: { type: 'integer', minimum: 1, maximum: max },
    text: (key, value) => {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidSetting(key, `${key} must be ${rule}`);
      return String(value);
    },
    check: (key, text) => {
      if (!valid(text)) throw invalidSetting(key, `${key} must be ${rule}`);
    },
    show: (stored) => ((typeof stored === 'string' || typeof stored === 'number') && valid(String(stored)) ? Number(stored) : null),
  };
}

// Weekday open intervals (domain/business-hours.ts): a JSON object over HTTP, its JSON text stored.
const HHMM: JsonSchema = { type: 'string', pattern: '^(?:[01]\\d|2[0-3]):[0-5]\\d$|^24:00$' };
const INTERVALS: JsonSchema = { type: 'array', maxItems: MAX_INTERVALS_PER_DAY, items: { type: 'array', minItems: 2, maxItems: 2, items: HHMM } };
const businessHours: SettingDeclaration = {
  setBy: 'members',
  sealed: false,
  schema: {
    type: 'object',
    properties: Object.fromEntries(WEEKDAYS.map((day) => [day, INTERVALS])),
    additionalProperties: false,
    example: {
      mon: [['09:00', '17:00']],
      tue: [
        ['09:00', '12:00'],
        ['13:00', '17:00'],
      ],
    },
  },
  // Any JSON: the parser says what is wrong with a value that is not an object of weekdays.
  text: (_key, value) => JSON.stringify(value),
  check: (_key, text) => void parseBusinessHours(text),
  show: (stored) => {
    if (typeof stored !== 'string') return null;
    try {
      parseBusinessHours(stored);
      return JSON.parse(stored) as unknown;
    } catch {
      return null;
    }
  },
};

// A list of 1 to 20 words (letters and digits, 1 to 32 each, no two the same ignoring case): a JSON
// array over HTTP, its JSON text stored (the CLI takes that text). Campaigns' opt-out keywords.
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 32;
const WORD = /^[\p{L}\p{N}]{1,32}$/u;

export function parseKeywordList(key: string, text: string): string[] {
  const rule = `${key} must be a list of 1 to ${MAX_KEYWORDS} words of 1 to ${MAX_KEYWORD_LENGTH} letters or digits, such as ["STOP","QUIT"]`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidSetting(key, rule);
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_KEYWORDS) throw invalidSetting(key, rule);
  const seen = new Set<string>();
  for (const [i, word] of value.entries()) {
    if (typeof word !== 'string' || !WORD.test(word)) throw invalidSetting(key, `${rule}: item ${i} is not`);
    const folded = word.toLowerCase();
    if (seen.has(folded)) throw invalidSetting(key, `${key} names ${JSON.stringify(word)} twice`);
    seen.add(folded);
  }
  return value as string[];
}

const keywordList: SettingDeclaration = {
  setBy: 'members',
  sealed: false,
  schema: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_KEYWORDS,
    items: { type: 'string', minLength: 1, maxLength: MAX_KEYWORD_LENGTH, description: 'letters and digits only' },
    example: ['STOP', 'QUIT'],
  },
  text: (_key, value) => JSON.stringify(value) ?? '',
  check: (key, text) => void parseKeywordList(key, text),
  show: (stored) => {
    if (typeof stored !== 'string') return null;
    try {
      return parseKeywordList('keywords', stored);
    } catch {
      return null;
    }
  },
};

// A secret of printable ASCII without spaces (it travels in HTTP headers and signatures).
function secret(minLength: number, maxLength: number): SettingDeclaration {
  const pattern = new RegExp(`^[\\x21-\\x7e]{${minLength},${maxLength}}$`);
  const rule = `${minLength} to ${maxLength} printable characters without spaces`;
  return {
    setBy: 'members',
    sealed: true,
    schema: { type: 'string', writeOnly: true, minLength, maxLength },
    text: asString(rule),
    check: (key, text) => {
      if (!pattern.test(text)) throw invalidSetting(key, `${key} must be ${rule}`);
    },
    show: () => null,
  };
}

export const ORGANIZATION_SETTINGS = {
  // Reports' days and dates, widget ranges, business hours (docs/analytics.md); default UTC.
  time_zone: timeZone,
  // The open hours response times count in (docs/analytics.md, "Business hours"); unset: every hour.
  business_hours: businessHours,
  // The reports' response target (docs/analytics.md); default 60.
  sla_target_minutes: wholeNumber(10080, 'minutes'),
  // How the CRM reads phone numbers written without a country code (docs/crm.md).
  default_country: plainText({
    pattern: /^[A-Z]{2}$/,
    maxLength: 2,
    example: 'EG',
    also: (code) => isSupportedCountry(code),
    rule: 'an ISO 3166 alpha-2 country code in capitals, such as EG',
  }),
  // Days without activity before an owned deal is reassigned (docs/crm.md, "Auto-reassignment"); default 7.
  deal_inactivity_days: wholeNumber(365, 'days'),
  // Whole inbound messages (SMS and chat app) that opt a contact out of, or back into, campaigns
  // (docs/campaigns.md, "Opt-out keywords"); unset: STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT and
  // START, UNSTOP.
  opt_out_keywords: keywordList,
  opt_in_keywords: keywordList,
  // The organization's folder on the CDN for call recordings (docs/calls.md); an operator's choice.
  suite_id: plainText({
    setBy: 'operator',
    pattern: /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    maxLength: 64,
    example: 'acme-01',
    rule: '1 to 64 letters, digits, "_" or "-", starting with a letter or digit',
  }),
  // The messaging provider's key of the organization (docs/messaging.md).
  appgain_api_key: secret(1, 512),
  // The Secret Token of the organization's Zoom app (docs/calls.md), as PUT /functions/v1/zoom-settings takes it.
  zoom_secret_token: secret(8, 256),
} satisfies Record<string, SettingDeclaration>;

export type SettingKey = keyof typeof ORGANIZATION_SETTINGS;
export const SETTING_KEYS = Object.keys(ORGANIZATION_SETTINGS) as SettingKey[];

export const settingOf = (key: string): SettingDeclaration | undefined =>
  Object.hasOwn(ORGANIZATION_SETTINGS, key) ? ORGANIZATION_SETTINGS[key as SettingKey] : undefined;

export const SECRET_SETTINGS: ReadonlySet<string> = new Set(SETTING_KEYS.filter((key) => ORGANIZATION_SETTINGS[key].sealed));

// What reads show: each plain setting by its name (null when unset or not valid), each sealed one
// as has_<key> and <key>_last4. `open` unseals a stored secret (null: none, or not readable).
export function settingsView(stored: Record<string, unknown>, open: (stored: unknown) => string | null): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const setting: SettingDeclaration = ORGANIZATION_SETTINGS[key];
    if (!setting.sealed) {
      view[key] = Object.hasOwn(stored, key) ? setting.show(stored[key]) : null;
      continue;
    }
    const value = Object.hasOwn(stored, key) ? open(stored[key]) : null;
    view[`has_${key}`] = value !== null;
    view[`${key}_last4`] = value !== null && value.length >= LAST4_MIN_LENGTH ? value.slice(-4) : null;
  }
  return view;
}
