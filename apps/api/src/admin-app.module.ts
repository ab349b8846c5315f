import { type DynamicModule, Module } from '@nestjs/common';
import { IdentityModule } from '@engage/identity';
import { PlatformModule, type PlatformRuntime } from '@engage/platform';

// What the admin CLI and the demo seed need: the platform and identity, no HTTP.
@Module({})
export class AdminAppModule {
  static forRoot(runtime: PlatformRuntime): DynamicModule {
    return { module: AdminAppModule, imports: [PlatformModule.forRoot(runtime), IdentityModule] };
  }
}
