import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, type PlatformRuntime } from '@engage/platform';
import { ApiAppModule } from './api-app.module';
import { ConsoleModule, type ConsoleOptions } from './console-static';

// The api with the web console at /app/ (console-static.ts); tests may point it at another build.
export function createApiApp(runtime: PlatformRuntime, extraModules: Type[] = [], consoleOptions: ConsoleOptions = {}): Promise<NestFastifyApplication> {
  const root = ApiAppModule.forRoot(runtime, extraModules);
  return createHttpApp(runtime, { ...root, imports: [...(root.imports ?? []), ConsoleModule.forRoot(consoleOptions)] });
}
