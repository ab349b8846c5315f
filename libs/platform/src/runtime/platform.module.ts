import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import { EVENT_BUS } from '@engage/shared-kernel';
import type pino from 'pino';
import { Database } from '../database/database';
import { OutboxSignal } from '../events/outbox-signal';
import { HealthController } from '../http/health.controller';
import { Metrics } from '../http/metrics';
import { gateLimits, OrgGate } from '../http/org-gate';
import { OpenApiParts } from '../http/openapi-parts';
import { EventSubscriptions } from './event-subscriptions';
import { OBJECT_STORAGE } from '../storage/object-storage';
import { objectStorageOf } from '../storage/object-storage-of';
import { EventsWorker } from './events-worker';
import { createLogger } from './log';
import type { PlatformRuntime } from './platform-runtime';
import { CONFIG, PLATFORM_LOG, PLATFORM_RUNTIME } from './tokens';

export function createLog(runtime: Pick<PlatformRuntime, 'config'>): pino.Logger {
  return createLogger(runtime.config.LOG_LEVEL);
}

@Global()
@Module({})
export class PlatformModule {
  static forRoot(runtime: PlatformRuntime, log: pino.Logger = createLog(runtime)): DynamicModule {
    const runsWorker = runtime.role !== 'api';
    const providers: Provider[] = [
      { provide: PLATFORM_RUNTIME, useValue: runtime },
      { provide: PLATFORM_LOG, useValue: log },
      { provide: CONFIG, useValue: runtime.config },
      { provide: Database, useValue: runtime.db },
      { provide: OutboxSignal, useValue: runtime.signal },
      { provide: EVENT_BUS, useValue: runtime.bus },
      { provide: Metrics, useFactory: () => new Metrics(runtime.db) },
      { provide: OrgGate, useFactory: () => new OrgGate(gateLimits(runtime.config), runtime.db.load) },
      { provide: OBJECT_STORAGE, useFactory: () => objectStorageOf(runtime.config) },
      EventSubscriptions,
      OpenApiParts,
      ...(runsWorker ? [EventsWorker] : []),
    ];
    return {
      module: PlatformModule,
      controllers: runtime.role === 'worker' ? [] : [HealthController],
      providers,
      exports: [PLATFORM_RUNTIME, PLATFORM_LOG, CONFIG, Database, OutboxSignal, EVENT_BUS, Metrics, OrgGate, OBJECT_STORAGE, EventSubscriptions, OpenApiParts],
    };
  }
}
