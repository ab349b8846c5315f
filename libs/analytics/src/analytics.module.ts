import { type DynamicModule, Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';
import { IdentityModule, OrganizationSettings } from '@engage/identity';
import { CONFIG, type Config, Database, settingsOf } from '@engage/platform';
import { ANALYTICS_SETTINGS } from './analytics.settings';
import { CLOCK, type Clock, systemClock } from '@engage/shared-kernel';
import { AnalyticsService } from './application/analytics.service';
import { MessageRollups } from './application/rollup.job';
import { WidgetsService } from './application/widgets.service';
import { WidgetsWriter } from './application/widgets.writer';
import { AnalyticsController } from './http/analytics.controller';
import { WidgetsController } from './http/widgets.controller';
import { WidgetsOpenApi } from './http/widgets.openapi';

const settingsReader = (settings: OrganizationSettings) => (id: string, keys: string[]) => settings.plainMany(id, keys);

// The data API's tables as the composition registered them (a widget may use the columns they
// serve), looked up once every module is up; an app without the data API serves none.
function dataApiTables(moduleRef: ModuleRef): () => Registry {
  let registry: Registry | undefined;
  return () => {
    if (!registry) {
      try {
        registry = moduleRef.get<Registry>(DATA_API_REGISTRY, { strict: false });
      } catch {
        registry = { tables: new Map() };
      }
    }
    return registry;
  };
}

// Reports over messaging's and the CRM's published views, and dashboard widgets (docs/analytics.md).
@Module({
  imports: [IdentityModule],
  controllers: [AnalyticsController, WidgetsController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    {
      provide: AnalyticsService,
      inject: [Database, OrganizationSettings, CLOCK],
      useFactory: (db: Database, settings: OrganizationSettings, clock: Clock) => new AnalyticsService(db, settingsReader(settings), clock),
    },
    {
      provide: WidgetsService,
      inject: [Database, OrganizationSettings, CLOCK, CONFIG, ModuleRef],
      useFactory: (db: Database, settings: OrganizationSettings, clock: Clock, config: Config, moduleRef: ModuleRef) =>
        new WidgetsService(
          db,
          settingsReader(settings),
          clock,
          settingsOf(config, ANALYTICS_SETTINGS).ANALYTICS_WIDGET_CACHE_SECONDS,
          dataApiTables(moduleRef),
        ),
    },
    {
      provide: MessageRollups,
      inject: [Database, OrganizationSettings],
      useFactory: (db: Database, settings: OrganizationSettings) => new MessageRollups(db, settingsReader(settings)),
    },
    WidgetsWriter,
    WidgetsOpenApi,
  ],
  exports: [AnalyticsService, WidgetsWriter, MessageRollups],
})
export class AnalyticsModule {
  // Tests fix the time reports and widgets are evaluated at.
  static withClock(clock: Clock): DynamicModule {
    return { module: AnalyticsModule, providers: [{ provide: CLOCK, useValue: clock }] };
  }
}
