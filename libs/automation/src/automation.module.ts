import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';
import { IdentityModule, OrganizationSettings } from '@engage/identity';
import { Database, SecretBox } from '@engage/platform';
import { CLOCK, type Clock, systemClock } from '@engage/shared-kernel';
import { RulesWriter } from './application/automation.record-writers';
import { DryRunService } from './application/dry-run.service';
import { RulesService } from './application/rules.service';
import { RunLogPurge } from './application/run-log-purge.job';
import { AutomationController } from './http/automation.controller';

// The data API's tables as the composition registered them, looked up once every module is up:
// the dry run reads its subject through them. An app without the data API reads none.
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

// Automation (docs/automation.md): rules as validated data (written through the data API), the
// run log and its retention, and the dry run.
@Module({
  imports: [IdentityModule],
  controllers: [AutomationController],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    { provide: RulesService, inject: [SecretBox], useFactory: (box: SecretBox) => new RulesService(box) },
    {
      provide: DryRunService,
      inject: [Database, RulesService, OrganizationSettings, CLOCK, ModuleRef],
      useFactory: (db: Database, rules: RulesService, settings: OrganizationSettings, clock: Clock, moduleRef: ModuleRef) =>
        new DryRunService(db, rules, dataApiTables(moduleRef), (id, keys) => settings.plainMany(id, keys), clock),
    },
    RulesWriter,
    RunLogPurge,
  ],
  exports: [RulesService, DryRunService],
})
export class AutomationModule {}
