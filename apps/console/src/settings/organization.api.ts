import { callApi } from '../api/functions';

export type Interval = [string, string];
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type BusinessHours = Partial<Record<Weekday, Interval[]>>;

// GET /functions/v1/organization/settings (docs/identity.md, "Organization settings"): every
// setting, null when unset; secrets only as has_<key> and <key>_last4.
export interface OrganizationSettings {
  time_zone: string | null;
  business_hours: BusinessHours | null;
  sla_target_minutes: number | null;
  default_country: string | null;
  deal_inactivity_days: number | null;
  opt_out_keywords: string[] | null;
  opt_in_keywords: string[] | null;
  [key: string]: unknown;
}

export type SettingsChange = Partial<
  Pick<
    OrganizationSettings,
    'time_zone' | 'business_hours' | 'sla_target_minutes' | 'default_country' | 'deal_inactivity_days' | 'opt_out_keywords' | 'opt_in_keywords'
  >
>;

export const ORGANIZATION = ['organization-settings'] as const;
const PATH = '/functions/v1/organization/settings';

export const getSettings = () => callApi<OrganizationSettings>(PATH);
export const saveSettings = (change: SettingsChange) => callApi<OrganizationSettings>(PATH, { method: 'PATCH', body: change });

// What applies while a keyword list is unset (docs/campaigns.md, "Opt-out keywords").
export const DEFAULT_OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'UNSTOP'];

export const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

// An empty text is "unset" (null); anything else is sent as typed, for the API to check.
export const numberOrNull = (value: FormDataEntryValue | null): number | null => (value === null || String(value).trim() === '' ? null : Number(value));
export const textOrNull = (value: FormDataEntryValue | null): string | null => (value === null || String(value).trim() === '' ? null : String(value).trim());
