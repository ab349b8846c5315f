import { json } from '@engage/platform';
import { ORGANIZATION_SETTINGS, type SettingDeclaration, SETTING_KEYS } from '../domain/organization-settings';

// What /functions/v1/organization/settings answers and what its PATCH takes, from the settings'
// declarations (domain/organization-settings.ts), so a new setting appears in both by itself.
const { boolean, text, nullable, object } = json;
const declared = SETTING_KEYS.map((key) => [key, ORGANIZATION_SETTINGS[key] as SettingDeclaration] as const);

// Every setting is present: a plain one by name (null when unset), a secret as has_<key> and <key>_last4.
export const ORGANIZATION_SETTINGS_VIEW = object(
  Object.fromEntries(
    declared.flatMap(([key, setting]) => {
      if (!setting.sealed) return [[key, nullable(setting.schema)]];
      const last4 = { ...nullable(text), description: `the last 4 characters of ${key} (null when unset or shorter than 8 characters)` };
      return [
        [`has_${key}`, boolean],
        [`${key}_last4`, last4],
      ];
    }),
  ),
);

// Any of the settings members set (suite_id is an operator's), each a value or null (removes it).
export const ORGANIZATION_SETTINGS_CHANGE = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(declared.filter(([, setting]) => setting.setBy === 'members').map(([key, setting]) => [key, nullable(setting.schema)])),
  example: { time_zone: 'Africa/Cairo', sla_target_minutes: 120, business_hours: null },
};
