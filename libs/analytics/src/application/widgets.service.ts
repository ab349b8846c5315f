import type { Database, Tx } from '@engage/platform';
import { type Clock, Forbidden, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import { isWidgetType, parseWidgetConfig, WIDGET_TYPES, type WidgetConfig, type WidgetType } from '../domain/widget-config';
import { BUILT_INS, WIDGET_SOURCES } from '../infrastructure/widget-sources';
import { type ReadSettings, type ReportingSettings, reportingSettings } from './reporting-settings';
import { WidgetValueCache } from './widget-cache';
import { widgetFilters, widgetRange, type WidgetSpec, widgetValues } from './widget-value';

interface WidgetRow {
  id: string;
  organization_id: string;
  user_id: string;
  widget_type: WidgetType;
  widget_config: WidgetConfig;
  position: number;
  is_visible: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, organization_id, user_id, widget_type, widget_config, position, is_visible, created_at, updated_at';
// A new member's dashboard, created on their first read of the list.
const DEFAULT_SET: { type: WidgetType; config: Partial<WidgetConfig> }[] = [
  { type: 'incoming_messages', config: { date_range: 'Today' } },
  { type: 'open_conversations', config: {} },
  { type: 'response_time', config: { date_range: 'This Week' } },
  { type: 'sla', config: { date_range: 'This Week' } },
  { type: 'pipeline_value', config: {} },
  { type: 'deals_won', config: { date_range: 'This Month' } },
  { type: 'new_contacts', config: { date_range: 'This Month' } },
];

const bad = (field: string, message: string) => ValidationFailed('widget.invalid_field', `${field}: ${message}`, { field });

// Dashboard widgets of the signed-in member (row-level security keeps everyone to their own).
export class WidgetsService {
  private readonly cache: WidgetValueCache;

  constructor(
    private readonly db: Database,
    private readonly readSettings: ReadSettings,
    private readonly clock: Clock,
    cacheSeconds = 0,
  ) {
    this.cache = new WidgetValueCache(cacheSeconds * 1000, clock);
  }

  async list(ctx: RequestContext, filter: { isVisible?: boolean }): Promise<{ widgets: object[] }> {
    const userId = requireUser(ctx);
    const settings = await this.settings(ctx);
    const now = this.clock.now();
    return this.db.inTenant(ctx, async (tx) => {
      await this.seedDefaults(tx, userId);
      const rows = await tx.query<WidgetRow>(
        `SELECT ${COLUMNS} FROM dashboard_widgets WHERE ($1::boolean IS NULL OR is_visible = $1) ORDER BY position, created_at, id`,
        [filter.isVisible ?? null],
      );
      const values = await this.values(tx, ctx.organizationId, rows.map((row) => ({ type: row.widget_type, config: row.widget_config })), settings, now);
      return { widgets: rows.map((row, i) => ({ ...view(row), value: values[i] })) };
    });
  }

  // Cached values where fresh; the others computed together in one statement, then cached.
  private async values(tx: Tx, organizationId: string, widgets: WidgetSpec[], settings: ReportingSettings, now: Date): Promise<(number | null)[]> {
    const keys = widgets.map((widget) => this.cache.key(organizationId, widget, settings));
    const values = keys.map((key) => this.cache.get(key)?.value);
    const missing = values.flatMap((value, i) => (value === undefined ? [i] : []));
    const computed = await widgetValues(tx, missing.map((i) => widgets[i]), settings, now);
    missing.forEach((i, n) => {
      values[i] = computed[n];
      this.cache.set(keys[i], computed[n]);
    });
    return values as (number | null)[];
  }

  private settings(ctx: RequestContext): Promise<ReportingSettings> {
    return reportingSettings(this.readSettings, ctx.organizationId);
  }

  // Reads only, once the member's dashboard is seeded (no row is written, so no lock is taken).
  private async seedDefaults(tx: Tx, userId: string): Promise<void> {
    const seeded = `INSERT INTO dashboard_seeded (organization_id, user_id) SELECT app_org_id(), $1
                    WHERE NOT EXISTS (SELECT 1 FROM dashboard_seeded WHERE user_id = $1) ON CONFLICT DO NOTHING RETURNING 1`;
    const [first] = await tx.query(seeded, [userId]);
    if (!first) return;
    const configs = DEFAULT_SET.map((widget) => parseWidgetConfig(widget.type, widget.config, WIDGET_SOURCES));
    await tx.query(
      `INSERT INTO dashboard_widgets (organization_id, user_id, widget_type, widget_config, position)
       SELECT app_org_id(), $1, t, c, p - 1 FROM unnest($2::text[], $3::jsonb[]) WITH ORDINALITY AS d(t, c, p)`,
      [userId, DEFAULT_SET.map((widget) => widget.type), configs.map((config) => JSON.stringify(config))],
    );
  }

  async createIn(tx: Tx, ctx: RequestContext, body: Record<string, unknown>): Promise<WidgetRow> {
    const userId = requireUser(ctx);
    const type = widgetType(body.widget_type);
    const config = await checkedConfig(tx, type, body.widget_config, () => this.settings(ctx), this.clock.now());
    const [row] = await tx.query<WidgetRow>(
      `INSERT INTO dashboard_widgets (organization_id, user_id, widget_type, widget_config, position, is_visible)
       VALUES (app_org_id(), $1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [userId, type, JSON.stringify(config), position(body.position ?? 0), visible(body.is_visible ?? true)],
    );
    return row;
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>): Promise<WidgetRow> {
    requireUser(ctx);
    const [current] = await tx.query<WidgetRow>(`SELECT ${COLUMNS} FROM dashboard_widgets WHERE id = $1 FOR UPDATE`, [id]);
    if (!current) throw NotFound('dashboard_widget', id);
    const type = body.widget_type === undefined ? current.widget_type : widgetType(body.widget_type);
    const config =
      body.widget_config === undefined && type === current.widget_type
        ? current.widget_config
        : await checkedConfig(tx, type, body.widget_config ?? current.widget_config, () => this.settings(ctx), this.clock.now());
    const [row] = await tx.query<WidgetRow>(
      `UPDATE dashboard_widgets SET widget_type = $2, widget_config = $3, position = $4, is_visible = $5, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, type, JSON.stringify(config), body.position === undefined ? current.position : position(body.position),
        body.is_visible === undefined ? current.is_visible : visible(body.is_visible)],
    );
    return row;
  }

  async removeIn(tx: Tx, ctx: RequestContext, id: string): Promise<void> {
    requireUser(ctx);
    await tx.query(`DELETE FROM dashboard_widgets WHERE id = $1`, [id]);
  }
}

function requireUser(ctx: RequestContext): string {
  if (!ctx.userId) throw Forbidden('widget.user_required', 'dashboard widgets belong to a signed-in member; an API key has none');
  return ctx.userId;
}

function widgetType(value: unknown): WidgetType {
  if (!isWidgetType(value)) throw bad('widget_type', `must be one of ${WIDGET_TYPES.join(', ')}`);
  return value;
}

// The shape, the filters through the data API's parser and a custom range's order, so a stored
// config always runs.
async function checkedConfig(tx: Tx, type: WidgetType, raw: unknown, settings: () => Promise<ReportingSettings>, now: Date): Promise<WidgetConfig> {
  const config = parseWidgetConfig(type, raw, WIDGET_SOURCES);
  widgetFilters(config.table ?? BUILT_INS[type as Exclude<WidgetType, 'custom'>].table, config.query);
  if (config.date_range === 'Custom Range') await widgetRange(tx, config, await settings(), now);
  return config;
}

function position(value: unknown): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 1000) throw bad('position', 'must be a whole number from 0 to 1000');
  return value as number;
}

function visible(value: unknown): boolean {
  if (typeof value !== 'boolean') throw bad('is_visible', 'must be true or false');
  return value;
}

function view(row: WidgetRow) {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}
