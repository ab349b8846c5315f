import type { Database, SecretBox } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { SECRET_SETTINGS, settingsView } from '../domain/organization-settings';

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

  // Several plain settings in one read (reports take three at a time), in the order asked; each
  // null when unset or not a string.
  async plainMany(organizationId: string, keys: string[]): Promise<(string | null)[]> {
    const sealed = keys.find((key) => SECRET_SETTINGS.has(key));
    if (sealed) throw new Error(`${sealed} is sealed`);
    const [row] = await this.db.systemQuery<{ values: unknown[] }>(
      `SELECT (SELECT jsonb_agg(settings->k ORDER BY n) FROM unnest($2::text[]) WITH ORDINALITY u(k, n)) AS values
       FROM organizations WHERE id = $1`,
      [organizationId, keys],
    );
    return keys.map((_, i) => (typeof row?.values?.[i] === 'string' ? (row.values[i] as string) : null));
  }

  // undefined: no such organization; key null: the organization has no provider key.
  async providerKey(organizationId: string): Promise<{ key: string | null } | undefined> {
    const query = `SELECT settings->'appgain_api_key' AS sealed FROM organizations WHERE id = $1`;
    const [row] = await this.db.systemQuery<{ sealed: unknown }>(query, [organizationId], { prepare: true });
    if (!row) return undefined;
    return { key: this.open(row.sealed) };
  }

  // The organization's Zoom secret token (zoom_secret_token, sealed). undefined: no such
  // organization; null: none set, or sealed with another ENCRYPTION_KEY.
  async zoomSecretToken(organizationId: string): Promise<string | null | undefined> {
    const query = `SELECT settings->'zoom_secret_token' AS sealed FROM organizations WHERE id = $1`;
    const [row] = await this.db.systemQuery<{ sealed: unknown }>(query, [organizationId]);
    if (!row) return undefined;
    return this.open(row.sealed);
  }

  // GET /functions/v1/organization/settings: the caller's organization's settings as every member
  // sees them (domain/organization-settings.ts, settingsView): secrets only as has_<key> and their
  // last four characters.
  async view(ctx: RequestContext): Promise<Record<string, unknown>> {
    const query = 'SELECT settings FROM organizations WHERE id = app_org_id()';
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<{ settings: Record<string, unknown> }>(query));
    return settingsView(row?.settings ?? {}, (stored) => this.open(stored));
  }

  // A stored {sealed} value opened; null when there is none, or it was sealed with another
  // ENCRYPTION_KEY (as good as missing: it must be set again).
  private open(stored: unknown): string | null {
    const sealed = (stored as { sealed?: unknown } | null)?.sealed;
    if (typeof sealed !== 'string') return null;
    try {
      return this.secrets.open(sealed);
    } catch {
      return null;
    }
  }
}
