import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { configureHttp, createFastifyAdapter } from './configure-http';

// The one way an HTTP app is assembled (main, e2e tests and context tests alike), so tests
// exercise the same stack as production.
export async function createHttpApp(runtime: PlatformRuntime, root: DynamicModule | Type): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(root, createFastifyAdapter(runtime.config), {
    rawBody: true,
    bufferLogs: true,
    abortOnError: false,
  });
  await configureHttp(app, runtime.config);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
