import { randomUUID } from 'node:crypto';
import type { Database, OutboundClient } from '@engage/platform';
import type { CustomerAiChoice, CustomerAiResolver } from '@engage/shared-kernel';
import type { SettingsRow } from '../domain/settings';
import { SETTINGS_OF } from '../infrastructure/reengagement.sql';
import type { AiTargets } from './ai-targets';

// The organization's own key for every AI feature when its settings say provider `custom` and
// key_scope `all` (call analysis asks through CUSTOMER_AI_RESOLVER); the platform's AI otherwise.
// A customer-given address is reached only through the SSRF-safe outbound client.
export class CustomerAiKeys implements CustomerAiResolver {
  constructor(
    private readonly db: Database,
    private readonly targets: AiTargets,
    private readonly outbound: OutboundClient,
  ) {}

  async providerFor(organizationId: string): Promise<CustomerAiChoice> {
    const ctx = { organizationId, userId: null, role: 'SYSTEM' as const, requestId: randomUUID() };
    const [settings] = await this.db.inTenant(ctx, (tx) => tx.query<SettingsRow>(SETTINGS_OF));
    if (!settings || settings.provider !== 'custom' || settings.key_scope !== 'all') return { kind: 'platform-default' };
    const target = this.targets.custom(settings);
    if (!target?.apiKey) return { kind: 'platform-default' };
    const choice = { kind: 'customer-key' as const, baseUrl: target.baseUrl, apiKey: target.apiKey, model: target.model };
    return target.untrusted ? { ...choice, fetch: outboundFetch(this.outbound) } : choice;
  }
}

// fetch's shape over the outbound client (string bodies: chat completions).
export const outboundFetch = (outbound: OutboundClient): typeof fetch =>
  (async (input: string | URL | Request, init?: RequestInit) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const method = (init?.method ?? 'GET') as 'GET' | 'POST';
    const answer = await outbound.request({ url: String(input), method, headers, body, maxBodyBytes: 1024 * 1024 });
    return new Response(answer.status === 204 ? null : new Uint8Array(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
