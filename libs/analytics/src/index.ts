import { defineContext, type MigrationClass } from '@engage/platform';
import { AnalyticsModule } from './analytics.module';

export { AnalyticsModule } from './analytics.module';
export { AnalyticsService } from './application/analytics.service';

export const analyticsMigrations: MigrationClass[] = [];

// Analytics reads messaging's and the CRM's published views (docs/analytics.md), so it comes after
// both in the composition.
export const analyticsManifest = defineContext({
  name: 'analytics', module: AnalyticsModule, migrations: analyticsMigrations, tables: [], publishes: [], consumes: {},
});
