import { defineContext, type MigrationClass } from '@engage/platform';
import { AnalyticsModule } from './analytics.module';
import { ANALYTICS_SETTINGS } from './analytics.settings';
import { analyticsSchedules } from './application/rollup.job';
import { WidgetsWriter } from './application/widgets.writer';
import { ANALYTICS_TABLES } from './infrastructure/exposed-tables';
import { CreateDashboardWidgets1763800014001 } from './infrastructure/migrations/0001-create-dashboard-widgets';
import { MessageRollups1763800014002 } from './infrastructure/migrations/0002-message-rollups';
import { BusinessHours1763800014003 } from './infrastructure/migrations/0003-business-hours';

export { AnalyticsModule } from './analytics.module';
export { ANALYTICS_SETTINGS } from './analytics.settings';
export { AnalyticsService } from './application/analytics.service';
export { WidgetsWriter } from './application/widgets.writer';
export { MessageRollups, analyticsSchedules } from './application/rollup.job';

export const analyticsMigrations: MigrationClass[] = [CreateDashboardWidgets1763800014001, MessageRollups1763800014002, BusinessHours1763800014003];

// Analytics reads messaging's and the CRM's published views (docs/analytics.md), so it comes after
// both in the composition; dashboard_widgets is written through the data API by WidgetsWriter.
export const analyticsManifest = defineContext({
  name: 'analytics',
  module: AnalyticsModule,
  migrations: analyticsMigrations,
  tables: [{ table: ANALYTICS_TABLES.dashboardWidgets, writer: WidgetsWriter }],
  publishes: [],
  consumes: {},
  settings: ANALYTICS_SETTINGS,
  jobs: { schedules: analyticsSchedules },
});
