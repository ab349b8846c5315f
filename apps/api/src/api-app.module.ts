import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { CONTEXT_JOBS, CONTEXT_MODULES } from '@engage/composition';
import { JobsModule, PlatformModule, type PlatformRuntime } from '@engage/platform';

@Module({})
export class ApiAppModule {
  static forRoot(runtime: PlatformRuntime, extraModules: Type[] = []): DynamicModule {
    return { module: ApiAppModule, imports: [PlatformModule.forRoot(runtime), ...CONTEXT_MODULES, JobsModule.forRoot(runtime, CONTEXT_JOBS), ...extraModules] };
  }
}
