import { type DynamicModule, Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { IdentityModule } from '@engage/identity';
import type { ExposedTable } from '@engage/platform';
import { RestController, DATA_API_REGISTRY } from './http/rest.controller';
import { DataApiOpenApi } from './openapi/openapi.controller';
import { defineRegistry } from './registry';
import { TableWriters } from './table-writers';

// Contexts declare the tables they expose in their manifests, each bound to its writer; the
// composition hands them all in here.
@Module({})
export class DataApiModule {
  static forRoot(tables: readonly ExposedTable[]): DynamicModule {
    return {
      module: DataApiModule,
      imports: [IdentityModule],
      controllers: [RestController],
      providers: [
        { provide: DATA_API_REGISTRY, useValue: defineRegistry(tables.map((exposed) => exposed.table)) },
        { provide: TableWriters, inject: [ModuleRef], useFactory: (moduleRef: ModuleRef) => new TableWriters(moduleRef, tables) },
        DataApiOpenApi,
      ],
    };
  }
}
