import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CONTEXT_MIGRATIONS, CONTEXT_SETTINGS } from '@engage/composition';
import { loadConfigOrExit, lowerProcessPriority, NestPinoLogger, PLATFORM_LOG, runUntilSignal, startPlatform } from '@engage/platform';
import type pino from 'pino';
import { WorkerAppModule } from './worker-app.module';

// The worker: outbox relay, event consumers and scheduled jobs; no HTTP.
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env, CONTEXT_SETTINGS);
  // Background work yields the CPU to the api's requests when they share a host.
  let nice = 0;
  let threads = 0;
  if (config.WORKER_NICE > 0) {
    try {
      threads = lowerProcessPriority(config.WORKER_NICE);
      nice = config.WORKER_NICE;
    } catch (error) {
      // Refused (e.g. already nicer than asked, without the right to go back): run as it is.
      process.stderr.write(`engage worker: WORKER_NICE=${config.WORKER_NICE} not applied: ${(error as Error).message}\n`);
    }
  }
  const runtime = await startPlatform(config, { role: 'worker', migrations: CONTEXT_MIGRATIONS });
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(runtime), { bufferLogs: true });
  app.useLogger(new NestPinoLogger(app.get<pino.Logger>(PLATFORM_LOG)));
  await app.init();
  app.get<pino.Logger>(PLATFORM_LOG).info({ events: config.KAFKA_BROKERS.length > 0 ? 'kafka' : 'in-process', nice, threads }, 'engage worker started');
  runUntilSignal(async () => {
    await app.close();
    await runtime.close();
  });
}

main().catch((error) => {
  process.stderr.write(`engage worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
