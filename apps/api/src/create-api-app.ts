import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { configureHttp, createFastifyAdapter, type PlatformRuntime } from '@engage/platform';
import { ApiAppModule } from './api-app.module';

// Shared by main.ts and the e2e tests, so tests exercise the same HTTP stack as production.
export async function createApiApp(runtime: PlatformRuntime, extraModules: Type[] = []): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(ApiAppModule.forRoot(runtime, extraModules), createFastifyAdapter(runtime.config), {
    rawBody: true,
    bufferLogs: true,
    abortOnError: false,
  });
  await configureHttp(app, runtime.config);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
