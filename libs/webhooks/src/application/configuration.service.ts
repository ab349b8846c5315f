import { assertAllowed } from '@engage/identity';
import { WEBHOOKS_MANAGE } from '../webhooks.permissions';
import { type OutboundClient, OutboundError, type SecretBox, type Tx } from '@engage/platform';
import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type ConfigurationFields, parseConfigurationFields } from '../domain/configuration';
import { generateSecret, maskSecret } from '../domain/secret';
import {
  CONFIGURATION_FOR_UPDATE,
  type ConfigurationRow,
  DELETE_CONFIGURATION,
  INSERT_CONFIGURATION,
  UPDATE_CONFIGURATION,
} from '../infrastructure/webhook.sql';

// A configuration as anyone reads it: the secret only masked.
export interface ConfigurationView {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  events: string[];
  secret: string | null;
  is_active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export function toConfigurationView(row: ConfigurationRow): ConfigurationView {
  const { secret_sealed: _sealed, ...rest } = row;
  const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());
  return { ...rest, failing_since: iso(row.failing_since), created_at: iso(row.created_at)!, updated_at: iso(row.updated_at)! };
}

export function assertWebhookId(id: string): void {
  if (!isUuid(id)) throw new DomainError('validation', 'webhook.invalid_id', `webhook id must be a UUID, got "${String(id).slice(0, 64)}"`);
}

// Webhook configurations: OWNER and ADMIN write (API keys and other roles read only). The secret
// is sealed at rest; only its mask is stored readable. A secret the service generates is returned
// in full once, in the answer to the request that created it.
export class ConfigurationService {
  constructor(
    private readonly box: SecretBox,
    private readonly outbound: OutboundClient,
    // The webhook kinds of the composed contexts (the event catalogue's).
    private readonly kinds: readonly string[],
  ) {}

  async createIn(tx: Tx, ctx: RequestContext, input: Record<string, unknown>): Promise<ConfigurationView> {
    assertAllowed(ctx.role, WEBHOOKS_MANAGE);
    const fields = parseConfigurationFields(input, true, this.kinds);
    await this.checkUrl(fields.url!);
    const generated = fields.secret === undefined ? generateSecret() : undefined;
    const secret = generated ?? fields.secret ?? null;
    const [row] = await tx.query<ConfigurationRow>(INSERT_CONFIGURATION, [
      fields.name,
      fields.url,
      fields.events,
      secret === null ? null : maskSecret(secret),
      secret === null ? null : this.box.seal(secret),
      fields.is_active ?? true,
      ctx.userId,
    ]);
    const view = toConfigurationView(row);
    return generated ? { ...view, secret: generated } : view;
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, input: Record<string, unknown>): Promise<ConfigurationView> {
    assertAllowed(ctx.role, WEBHOOKS_MANAGE);
    assertWebhookId(id);
    const fields: ConfigurationFields = parseConfigurationFields(input, false, this.kinds);
    if (fields.url !== undefined) await this.checkUrl(fields.url);
    const [current] = await tx.query<ConfigurationRow>(CONFIGURATION_FOR_UPDATE, [id]);
    if (!current) throw NotFound('webhook', id);
    const secretChanged = fields.secret !== undefined;
    const secret = fields.secret ?? null;
    const [row] = await tx.query<ConfigurationRow>(UPDATE_CONFIGURATION, [
      id,
      fields.name ?? current.name,
      fields.url ?? current.url,
      fields.events ?? current.events,
      secretChanged ? (secret === null ? null : maskSecret(secret)) : current.secret,
      secretChanged ? (secret === null ? null : this.box.seal(secret)) : current.secret_sealed,
      fields.is_active ?? current.is_active,
    ]);
    return toConfigurationView(row);
  }

  async removeIn(tx: Tx, ctx: RequestContext, id: string): Promise<void> {
    assertAllowed(ctx.role, WEBHOOKS_MANAGE);
    assertWebhookId(id);
    if ((await tx.execute(DELETE_CONFIGURATION, [id])) === 0) throw NotFound('webhook', id);
  }

  // The signing secret of a stored row, for the sender.
  secretOf(row: Pick<ConfigurationRow, 'secret_sealed'>): string | null {
    return row.secret_sealed ? this.box.open(row.secret_sealed) : null;
  }

  // The checks of a delivery, DNS included: a host resolving to loopback, a private or link-local
  // address (`localhost`, a name in /etc/hosts), or not resolving, is refused when saved.
  private async checkUrl(url: string): Promise<void> {
    try {
      await this.outbound.vet(url);
    } catch (error) {
      if (error instanceof OutboundError)
        throw new DomainError('validation', 'webhook.invalid_url', `url refused: ${error.message}`, { field: 'url', reason: error.code });
      throw error;
    }
  }
}
