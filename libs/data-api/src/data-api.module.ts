import { type DynamicModule, Module } from '@nestjs/common';
import { IdentityModule } from '@engage/identity';
import { RestController, DATA_API_REGISTRY } from './http/rest.controller';
import { defineRegistry, type TableDefinition } from './registry';

// Contexts declare the tables they expose; the composition hands them all in here.
@Module({})
export class DataApiModule {
  static forRoot(tables: TableDefinition[]): DynamicModule {
    return {
      module: DataApiModule,
      imports: [IdentityModule],
      controllers: [RestController],
      providers: [{ provide: DATA_API_REGISTRY, useValue: defineRegistry(tables) }],
    };
  }
}
