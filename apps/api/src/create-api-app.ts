import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, type PlatformRuntime } from '@engage/platform';
import { ApiAppModule } from './api-app.module';

export function createApiApp(runtime: PlatformRuntime, extraModules: Type[] = []): Promise<NestFastifyApplication> {
  return createHttpApp(runtime, ApiAppModule.forRoot(runtime, extraModules));
}
