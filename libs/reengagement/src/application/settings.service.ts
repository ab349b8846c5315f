import { type Database, OutboundError, type OutboundClient, type SecretBox } from '@engage/platform';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { DEFAULT_SETTINGS, type SettingsRow, settingsView } from '../domain/settings';
import { reengagementError } from '../domain/draft-rules';
import type { ChatCompletions } from '../infrastructure/chat-completions';
import { SETTINGS_OF, UPSERT_SETTINGS } from '../infrastructure/reengagement.sql';
import type { AiTargets } from './ai-targets';

export interface SettingsChange {
  enabled?: boolean;
  provider?: 'default' | 'custom';
  custom_key?: string | null;
  custom_base_url?: string | null;
  key_scope?: 'all' | 'reengagement';
  fallback_to_default?: boolean;
  approval_mode?: boolean;
  trigger_hours?: number;
  channels?: string[];
  guidelines?: string;
}

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);

// An organization's re-engagement settings. The customer's key is write-only: sealed before it is
// stored, checked with one cheap call when it is set, and shown only as has_custom_key and last4.
export class ReengagementSettings {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly targets: AiTargets,
    private readonly ai: ChatCompletions,
    private readonly outbound: OutboundClient,
  ) {}

  async row(ctx: RequestContext): Promise<SettingsRow> {
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<SettingsRow>(SETTINGS_OF));
    return row ?? { organization_id: ctx.organizationId, ...DEFAULT_SETTINGS };
  }

  async show(ctx: RequestContext) {
    return settingsView(await this.row(ctx), this.targets.defaultConfigured);
  }

  async change(ctx: RequestContext, change: SettingsChange) {
    const current = await this.row(ctx);
    const next: SettingsRow = { ...current };
    for (const key of ['enabled', 'provider', 'key_scope', 'fallback_to_default', 'approval_mode', 'trigger_hours', 'guidelines'] as const) {
      if (change[key] !== undefined && change[key] !== null) (next as unknown as Record<string, unknown>)[key] = change[key];
    }
    if (change.channels !== undefined) next.channels = [...new Set(change.channels)];
    if (change.custom_base_url !== undefined) next.custom_base_url = change.custom_base_url === null ? null : await this.checkAddress(change.custom_base_url);
    let keyCheck: { ok: boolean; error?: string } | undefined;
    if (change.custom_key === null) {
      next.custom_key_sealed = null;
      next.custom_key_last4 = null;
    } else if (typeof change.custom_key === 'string') {
      const target = this.targets.custom(next, change.custom_key);
      if (!target) throw reengagementError('unprocessable', 'no_ai_address', 'custom_key needs custom_base_url: the platform has no AI address of its own');
      keyCheck = await this.ai.checkKey(target);
      next.custom_key_sealed = this.box.seal(change.custom_key);
      next.custom_key_last4 = change.custom_key.slice(-4);
    }
    if (next.enabled) this.assertUsable(next);
    const [saved] = await this.db.inTenant(ctx, (tx) =>
      tx.query<SettingsRow>(UPSERT_SETTINGS, [
        next.enabled,
        next.provider,
        next.custom_key_sealed,
        next.custom_key_last4,
        next.custom_base_url,
        next.key_scope,
        next.fallback_to_default,
        next.approval_mode,
        next.trigger_hours,
        next.channels,
        next.guidelines,
      ]),
    );
    return { ...settingsView(saved, this.targets.defaultConfigured), ...(keyCheck ? { custom_key_check: keyCheck } : {}) };
  }

  // Enabling needs an AI that can write the drafts, and says which one is missing.
  private assertUsable(settings: SettingsRow): void {
    if (this.targets.plan(settings).first) return;
    const why =
      settings.provider === 'custom'
        ? 'provider is custom but no custom_key is set (or it has no address: give custom_base_url)'
        : 'the platform has no default AI configured (AI_BASE_URL): set provider custom with your own custom_key';
    throw reengagementError('unprocessable', 'ai_not_configured', `Re-engagement cannot be enabled: ${why}`);
  }

  // The checks of a call, DNS included: a host resolving to loopback or a private address, or not
  // resolving, is refused when saved.
  private async checkAddress(url: string): Promise<string> {
    try {
      await this.outbound.vet(url);
    } catch (error) {
      if (error instanceof OutboundError) throw invalid(`custom_base_url: ${error.message}`);
      throw error;
    }
    return url.replace(/\/+$/, '');
  }
}
