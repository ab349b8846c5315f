import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EVENT_BUS, type EventBus } from '@engage/shared-kernel';
import { Database } from '../database/database';
import { pendingMigrations } from '../database/migrate';
import { Metrics } from './metrics';

@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    private readonly db: Database,
    private readonly metrics: Metrics,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
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
      await this.db.ping();
      checks.database = 'ok';
      checks.migrations = (await pendingMigrations(this.db.dataSource)) ? 'pending' : 'ok';
    } catch (error) {
      checks.database = `unreachable: ${error instanceof Error ? error.message : String(error)}`;
    }
    checks.bus = this.bus.isConnected() ? 'ok' : 'disconnected';
    const ready = Object.values(checks).every((value) => value === 'ok');
    void reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape() {
    return this.metrics.registry.metrics();
  }
}
