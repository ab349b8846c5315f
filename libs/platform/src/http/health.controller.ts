import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EVENT_BUS, type EventBus } from '@engage/shared-kernel';
import { Database } from '../database/database';
import { PLATFORM_RUNTIME } from '../runtime/tokens';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { Metrics } from './metrics';

@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(PLATFORM_RUNTIME) private readonly runtime: PlatformRuntime,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  health() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res() reply: FastifyReply) {
    const checks: Record<string, string> = {};
    try {
      await this.db.ping(); // SELECT 1
      checks.database = 'ok';
      // Migrations are applied (or found applied) before the process serves anything.
      checks.migrations = this.runtime.migrated ? 'ok' : 'pending';
    } catch (error) {
      checks.database = `unreachable: ${error instanceof Error ? error.message : String(error)}`;
    }
    // An api-only process leaves events in the outbox for a worker: it has no bus to check.
    if (this.runtime.role !== 'api') checks.bus = this.bus.isConnected() ? 'ok' : 'disconnected';
    const ready = Object.values(checks).every((value) => value === 'ok');
    void reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape() {
    return this.metrics.registry.metrics();
  }
}
