export const PROVIDERS = ['default', 'custom'] as const;
export const KEY_SCOPES = ['all', 'reengagement'] as const;
// Social-messaging kinds by default (the 24-hour window is theirs); the list is a setting.
export const DEFAULT_CHANNELS = ['messenger', 'instagram'];
// Kinds a nudge can go out on through messaging's adapters (email has none yet; SMS is not a reply path).
export const NUDGE_CHANNEL_KINDS = ['chat_app', 'messenger', 'instagram'] as const;
export const TRIGGER_HOURS = { min: 12, max: 23, default: 20 } as const;

export interface SettingsRow {
  organization_id: string;
  enabled: boolean;
  provider: (typeof PROVIDERS)[number];
  custom_key_sealed: string | null;
  custom_key_last4: string | null;
  custom_base_url: string | null;
  key_scope: (typeof KEY_SCOPES)[number];
  fallback_to_default: boolean;
  approval_mode: boolean;
  trigger_hours: number;
  channels: string[];
  guidelines: string;
  updated_at: Date | null;
}

export const DEFAULT_SETTINGS: Omit<SettingsRow, 'organization_id'> = {
  enabled: false,
  provider: 'default',
  custom_key_sealed: null,
  custom_key_last4: null,
  custom_base_url: null,
  key_scope: 'reengagement',
  fallback_to_default: true,
  approval_mode: true,
  trigger_hours: TRIGGER_HOURS.default,
  channels: DEFAULT_CHANNELS,
  guidelines: '',
  updated_at: null,
};

// What any response shows: the key itself never, only whether one is set and its last four.
export function settingsView(row: Omit<SettingsRow, 'organization_id'>, defaultAiConfigured: boolean) {
  return {
    enabled: row.enabled,
    provider: row.provider,
    has_custom_key: row.custom_key_sealed !== null,
    custom_key_last4: row.custom_key_last4,
    custom_base_url: row.custom_base_url,
    key_scope: row.key_scope,
    fallback_to_default: row.fallback_to_default,
    approval_mode: row.approval_mode,
    trigger_hours: row.trigger_hours,
    channels: row.channels,
    guidelines: row.guidelines,
    default_ai_configured: defaultAiConfigured,
    updated_at: row.updated_at ? new Date(row.updated_at).toISOString() : null,
  };
}

export type SettingsView = ReturnType<typeof settingsView>;
