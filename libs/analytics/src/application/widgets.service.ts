import type { Registry } from '@engage/data-api';
import type { Database, Tx } from '@engage/platform';
import { type Clock, Forbidden, NotFound, type RequestContext, ValidationFailed } from '@engage/shared-kernel';
import { isWidgetType, parseWidgetConfig, WIDGET_TYPES, type WidgetConfig, type WidgetType } from '../domain/widget-config';
import { BUILT_INS, type WidgetSource, widgetSources } from '../infrastructure/widget-sources';
import { type ReadSettings, type ReportingSettings, reportingSettings } from './reporting-settings';
import { WidgetValueCache } from './widget-cache';
import { checkWidget } from './widget-check';
import { type WidgetOutcome, widgetPlan, type WidgetSpec, widgetValues } from './widget-value';

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
const NO_TABLES: Registry = { tables: new Map() };
type Sources = Readonly<Record<string, WidgetSource>>;

// Dashboard widgets of the signed-in member (row-level security keeps everyone to their own).
export class WidgetsService {
  private readonly cache: WidgetValueCache;

  constructor(
    private readonly db: Database,
    private readonly readSettings: ReadSettings,
    private readonly clock: Clock,
    cacheSeconds = 0,
    // The data API's tables (what each role reads of them): a widget's columns are those.
    private readonly registry: () => Registry = () => NO_TABLES,
  ) {
    this.cache = new WidgetValueCache(cacheSeconds * 1000, clock);
  }

  // The widget tables as this member sees them.
  private sources(ctx: RequestContext): Sources {
    return widgetSources(this.registry(), ctx.role);
  }

  // Each widget with its value, or (a widget whose value fails: a stored query the data no longer
  // lets run, a column the member's role no longer reads) a null value and its error.
  async list(ctx: RequestContext, filter: { isVisible?: boolean }): Promise<{ widgets: object[] }> {
    const userId = requireUser(ctx);
    const settings = await this.settings(ctx);
    const now = this.clock.now();
    const sources = this.sources(ctx);
    return this.db.inTenant(ctx, async (tx) => {
      await this.seedDefaults(tx, userId, sources);
      const rows = await tx.query<WidgetRow>(
        `SELECT ${COLUMNS} FROM dashboard_widgets WHERE ($1::boolean IS NULL OR is_visible = $1) ORDER BY position, created_at, id`,
        [filter.isVisible ?? null],
      );
      const widgets = rows.map((row) => ({ type: row.widget_type, config: row.widget_config }));
      const outcomes = await this.values(tx, ctx.organizationId, widgets, sources, settings, now);
      return { widgets: rows.map((row, i) => ({ ...view(row), value: outcomes[i].value, error: outcomes[i].error })) };
    });
  }

  // Cached values where fresh; the others computed together in one statement, then cached.
  private async values(
    tx: Tx,
    organizationId: string,
    widgets: WidgetSpec[],
    sources: Sources,
    settings: ReportingSettings,
    now: Date,
  ): Promise<WidgetOutcome[]> {
    const keys = widgets.map((widget) => this.cache.key(organizationId, widget, settings, sourceOf(widget, sources)?.hidden ?? ''));
    const outcomes = keys.map((key) => this.cache.get(key));
    const missing = outcomes.flatMap((outcome, i) => (outcome === undefined ? [i] : []));
    const computed = await widgetValues(
      tx,
      missing.map((i) => widgets[i]),
      sources,
      settings,
      now,
    );
    missing.forEach((i, n) => {
      outcomes[i] = computed[n];
      this.cache.set(keys[i], computed[n]);
    });
    return outcomes as WidgetOutcome[];
  }

  private settings(ctx: RequestContext): Promise<ReportingSettings> {
    return reportingSettings(this.readSettings, ctx.organizationId);
  }

  // Reads only, once the member's dashboard is seeded (no row is written, so no lock is taken).
  private async seedDefaults(tx: Tx, userId: string, sources: Sources): Promise<void> {
    const seeded = `INSERT INTO dashboard_seeded (organization_id, user_id) SELECT app_org_id(), $1
                    WHERE NOT EXISTS (SELECT 1 FROM dashboard_seeded WHERE user_id = $1) ON CONFLICT DO NOTHING RETURNING 1`;
    const [first] = await tx.query(seeded, [userId]);
    if (!first) return;
    const configs = DEFAULT_SET.map((widget) => parseWidgetConfig(widget.type, widget.config, sources));
    await tx.query(
      `INSERT INTO dashboard_widgets (organization_id, user_id, widget_type, widget_config, position)
       SELECT app_org_id(), $1, t, c, p - 1 FROM unnest($2::text[], $3::jsonb[]) WITH ORDINALITY AS d(t, c, p)`,
      [userId, DEFAULT_SET.map((widget) => widget.type), configs.map((config) => JSON.stringify(config))],
    );
  }

  async createIn(tx: Tx, ctx: RequestContext, body: Record<string, unknown>): Promise<WidgetRow> {
    const userId = requireUser(ctx);
    ownIds(ctx, body);
    if (body.widget_type === undefined) throw bad('widget_type', `is required: one of ${WIDGET_TYPES.join(', ')}`);
    const type = widgetType(body.widget_type);
    const config = await this.checkedConfig(tx, ctx, type, body.widget_config);
    const [row] = await tx.query<WidgetRow>(
      `INSERT INTO dashboard_widgets (organization_id, user_id, widget_type, widget_config, position, is_visible)
       VALUES (app_org_id(), $1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [userId, type, JSON.stringify(config), position(body.position ?? 0), visible(body.is_visible ?? true)],
    );
    return row;
  }

  async updateIn(tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>): Promise<WidgetRow> {
    requireUser(ctx);
    ownIds(ctx, body);
    const [current] = await tx.query<WidgetRow>(`SELECT ${COLUMNS} FROM dashboard_widgets WHERE id = $1 FOR UPDATE`, [id]);
    if (!current) throw NotFound('dashboard_widget', id);
    const type = body.widget_type === undefined ? current.widget_type : widgetType(body.widget_type);
    const config =
      body.widget_config === undefined && type === current.widget_type
        ? current.widget_config
        : await this.checkedConfig(tx, ctx, type, body.widget_config ?? current.widget_config);
    const [row] = await tx.query<WidgetRow>(
      `UPDATE dashboard_widgets SET widget_type = $2, widget_config = $3, position = $4, is_visible = $5, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        type,
        JSON.stringify(config),
        body.position === undefined ? current.position : position(body.position),
        body.is_visible === undefined ? current.is_visible : visible(body.is_visible),
      ],
    );
    return row;
  }

  async removeIn(tx: Tx, ctx: RequestContext, id: string): Promise<void> {
    requireUser(ctx);
    await tx.query(`DELETE FROM dashboard_widgets WHERE id = $1`, [id]);
  }

  // The shape, the filters through the data API's parser against the member's columns, a custom
  // range's order, and the query run once (widget-check.ts), so a stored config computes.
  private async checkedConfig(tx: Tx, ctx: RequestContext, type: WidgetType, raw: unknown): Promise<WidgetConfig> {
    const plan = await widgetPlan(tx, { type, config: raw as WidgetConfig }, this.sources(ctx));
    await checkWidget(tx, plan, await this.settings(ctx), this.clock.now());
    return plan.config;
  }
}

const sourceOf = (widget: WidgetSpec, sources: Sources): WidgetSource | undefined =>
  sources[widget.type === 'custom' ? (widget.config?.table as string) : BUILT_INS[widget.type]?.table];

// A widget is the caller's, in the caller's organization: a body naming another organization or
// member is refused rather than quietly written as the caller's.
function ownIds(ctx: RequestContext, body: Record<string, unknown>): void {
  const own = { organization_id: ctx.organizationId, user_id: ctx.userId ?? '' };
  for (const [field, id] of Object.entries(own)) {
    const given = body[field];
    if (given === undefined) continue;
    if (typeof given !== 'string') throw bad(field, "must be a UUID (the caller's own)");
    if (given.toLowerCase() !== id.toLowerCase()) {
      const message = `${field}: a widget is the signed-in member's, in their organization; another is refused`;
      throw Forbidden(`widget.${field.replace('_id', '')}_forbidden`, message);
    }
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
