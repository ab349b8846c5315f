import { type SecretBox } from '@engage/platform';
import type { AiTarget } from '../infrastructure/chat-completions';
import type { SettingsRow } from '../domain/settings';

// The platform's AI (the calls context's AI_* settings): unset base URL means none.
export interface PlatformAi {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string;
}

export const AI_TARGETS = Symbol('AI_TARGETS');

// Which AI writes an organization's drafts: the customer's key when one is set and chosen (it is
// in scope whether the scope is `all` or `reengagement`), the platform default otherwise.
export class AiTargets {
  constructor(
    private readonly platform: PlatformAi,
    private readonly box: SecretBox,
  ) {}

  get defaultConfigured(): boolean {
    return Boolean(this.platform.baseUrl);
  }

  platformDefault(): AiTarget | null {
    const { baseUrl, apiKey, model } = this.platform;
    return baseUrl ? { provider: 'default', baseUrl, apiKey, model, untrusted: false } : null;
  }

  // The customer's key against their address, or the platform's AI_BASE_URL when they gave none.
  custom(settings: Pick<SettingsRow, 'custom_key_sealed' | 'custom_base_url'>, key?: string): AiTarget | null {
    const apiKey = key ?? (settings.custom_key_sealed ? this.box.open(settings.custom_key_sealed) : undefined);
    if (!apiKey) return null;
    if (settings.custom_base_url) return { provider: 'custom', baseUrl: settings.custom_base_url, apiKey, model: this.platform.model, untrusted: true };
    return this.platform.baseUrl ? { provider: 'custom', baseUrl: this.platform.baseUrl, apiKey, model: this.platform.model, untrusted: false } : null;
  }

  // The first choice and, when the customer's key fails and fallback is on, the second.
  plan(settings: SettingsRow): { first: AiTarget | null; fallback: AiTarget | null } {
    const custom = settings.provider === 'custom' ? this.custom(settings) : null;
    if (custom) return { first: custom, fallback: settings.fallback_to_default ? this.platformDefault() : null };
    return { first: settings.provider === 'default' ? this.platformDefault() : null, fallback: null };
  }
}
