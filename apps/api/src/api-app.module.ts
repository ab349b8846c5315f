import { type DynamicModule, Module } from '@nestjs/common';
import { CONTEXT_MODULES } from '@engage/composition';
import { PlatformModule, type PlatformRuntime } from '@engage/platform';

@Module({})
export class ApiAppModule {
  static forRoot(runtime: PlatformRuntime): DynamicModule {
    return { module: ApiAppModule, imports: [PlatformModule.forRoot(runtime), ...CONTEXT_MODULES] };
  }
}
