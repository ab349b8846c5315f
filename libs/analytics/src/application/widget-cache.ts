import type { Clock } from '@engage/shared-kernel';
import type { ReportingSettings } from './reporting-settings';
import type { WidgetOutcome, WidgetSpec } from './widget-value';

const MAX_ENTRIES = 10_000;

// Widget values per organization, served again for a few seconds (ANALYTICS_WIDGET_CACHE_SECONDS):
// the members of an organization polling their dashboards share one computation per widget
// definition. A value depends only on the organization's rows (row-level security is per
// organization), the widget's type and config, the organization's reporting settings and the columns
// of the widget's table the member's role does not read (usually none, so members share values), which
// make the key; it expires by the service's clock. The oldest entries go first beyond MAX_ENTRIES.
// A widget's error (value null) is served again like a value.
export class WidgetValueCache {
  private readonly entries = new Map<string, { outcome: WidgetOutcome; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  key(organizationId: string, widget: WidgetSpec, settings: ReportingSettings, hidden: string): string {
    return JSON.stringify([organizationId, widget.type, widget.config, settings.timeZone, settings.targetMinutes, settings.schedule, hidden]);
  }

  get(key: string): WidgetOutcome | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > this.clock.now().getTime()) return entry.outcome;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, outcome: WidgetOutcome): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { outcome, expires: this.clock.now().getTime() + this.ttlMs });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
