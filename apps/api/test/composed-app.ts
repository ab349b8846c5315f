import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import type { PlatformRuntime } from '@engage/platform';
import { startTestRuntime } from '@engage/platform/testing';
import { createApiApp } from '../src/create-api-app';

// The composed api (every context) on a fresh database of its own, for HTTP tests across contexts.
export async function startComposedApp(
  options: Parameters<typeof startTestRuntime>[0] = {},
): Promise<{ runtime: PlatformRuntime; app: NestFastifyApplication; close(): Promise<void> }> {
  const runtime = await startTestRuntime({ role: 'api', migrations: CONTEXT_MIGRATIONS, ...options });
  const app = await createApiApp(runtime);
  return {
    runtime,
    app,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
