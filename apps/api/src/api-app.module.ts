import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { CONTEXT_MODULES } from '@engage/composition';
import { PlatformModule, type PlatformRuntime } from '@engage/platform';

@Module({})
export class ApiAppModule {
  static forRoot(runtime: PlatformRuntime, extraModules: Type[] = []): DynamicModule {
    return { module: ApiAppModule, imports: [PlatformModule.forRoot(runtime), ...CONTEXT_MODULES, ...extraModules] };
  }
}
