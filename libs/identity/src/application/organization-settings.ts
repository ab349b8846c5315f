import type { Database, SecretBox } from '@engage/platform';
import { SECRET_SETTINGS } from './organization.service';

// Read side of organization settings for other contexts: the provider key is unsealed here so the
// sealed form never leaves identity.
export class OrganizationSettings {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  // A plain (not sealed) setting as text, e.g. the calls context's `suite_id`; null when unset or
  // not a string. Sealed settings are read through their own methods only.
  async plain(organizationId: string, key: string): Promise<string | null> {
    if (SECRET_SETTINGS.has(key)) throw new Error(`${key} is sealed`);
    const [row] = await this.db.systemQuery<{ value: unknown }>(`SELECT settings->$2 AS value FROM organizations WHERE id = $1`, [organizationId, key]);
    return typeof row?.value === 'string' ? row.value : null;
  }

  // undefined: no such organization; key null: the organization has no provider key.
  async providerKey(organizationId: string): Promise<{ key: string | null } | undefined> {
    const secret = await this.secret(organizationId, 'appgain_api_key');
    return secret && { key: secret.value };
  }

  // A sealed setting (SECRET_SETTINGS), opened. undefined: no such organization; value null: not set.
  async secret(organizationId: string, name: 'appgain_api_key' | 'zoom_secret_token'): Promise<{ value: string | null } | undefined> {
    const [row] = await this.db.systemQuery<{ sealed: unknown }>(`SELECT settings->$2::text AS sealed FROM organizations WHERE id = $1`, [organizationId, name]);
    if (!row) return undefined;
    const sealed = (row.sealed as { sealed?: unknown } | null)?.sealed;
    if (typeof sealed !== 'string') return { value: null };
    try {
      return { value: this.secrets.open(sealed) };
    } catch {
      // Sealed with another ENCRYPTION_KEY: as good as missing; it must be set again.
      return { value: null };
    }
  }

  // A plain (unsealed) text setting such as suite_id; null when unset or not text.
  async text(organizationId: string, name: string): Promise<string | null> {
    const [row] = await this.db.systemQuery<{ value: unknown }>(`SELECT settings->>$2::text AS value FROM organizations WHERE id = $1`, [organizationId, name]);
    return typeof row?.value === 'string' ? row.value : null;
  }
}
