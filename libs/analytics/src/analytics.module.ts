import { type DynamicModule, Module } from '@nestjs/common';
import { IdentityModule, OrganizationSettings } from '@engage/identity';
import { Database } from '@engage/platform';
import { CLOCK, type Clock, systemClock } from '@engage/shared-kernel';
import { AnalyticsService } from './application/analytics.service';
import { AnalyticsController } from './http/analytics.controller';

// Reports over messaging's and the CRM's published views (docs/analytics.md).
@Module({
  imports: [IdentityModule],
  controllers: [AnalyticsController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    {
      provide: AnalyticsService,
      inject: [Database, OrganizationSettings, CLOCK],
      useFactory: (db: Database, settings: OrganizationSettings, clock: Clock) => new AnalyticsService(db, (id, key) => settings.plain(id, key), clock),
    },
  ],
  exports: [AnalyticsService],
})
export class AnalyticsModule {
  // Tests fix the time reports and widgets are evaluated at.
  static withClock(clock: Clock): DynamicModule {
    return { module: AnalyticsModule, providers: [{ provide: CLOCK, useValue: clock }] };
  }
}
