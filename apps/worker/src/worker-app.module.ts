import { type DynamicModule, Module } from '@nestjs/common';
import { CONTEXT_JOBS, CONTEXT_MODULES } from '@engage/composition';
import { JobsModule, PlatformModule, type PlatformRuntime } from '@engage/platform';

@Module({})
export class WorkerAppModule {
  static forRoot(runtime: PlatformRuntime): DynamicModule {
    return { module: WorkerAppModule, imports: [PlatformModule.forRoot(runtime), ...CONTEXT_MODULES, JobsModule.forRoot(runtime, CONTEXT_JOBS)] };
  }
}
