import type { ModuleRef } from '@nestjs/core';
import { DATA_API_REGISTRY, type Registry } from '@engage/data-api';

// The data API's tables as the composition registered them, looked up once every module is up: a
// segment's filter is parsed against /rest/v1/contacts as the caller reads it.
export type Tables = () => Registry;

export function dataApiTables(moduleRef: ModuleRef): Tables {
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
