import 'reflect-metadata';
import { CONTEXT_MIGRATIONS } from '@engage/composition';
import { loadConfigOrExit, runUntilSignal, startPlatform } from '@engage/platform';
import { createApiApp } from './create-api-app';

// `--with-worker` runs api and worker in one process (npm start); without it, the api alone.
async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfigOrExit();
  const role = process.argv.includes('--with-worker') ? 'all' : 'api';
  const runtime = await startPlatform(config, { role, migrations: CONTEXT_MIGRATIONS });
  const app = await createApiApp(runtime);
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
  process.stdout.write(
    [
      `engage ${role === 'all' ? 'api + worker' : 'api'} listening on ${url} (ready in ${Date.now() - started} ms)`,
      `  database: ${runtime.embedded ? `embedded PostgreSQL in ${config.DATA_DIR}/pg` : 'DATABASE_URL'}`,
      `  events:   ${config.KAFKA_BROKERS.length > 0 ? `Kafka ${config.KAFKA_BROKERS.join(',')}` : 'in-process bus'}`,
      `  docs:     ${url}/docs`,
      '',
    ].join('\n'),
  );
  runUntilSignal(async () => {
    await app.close();
    await runtime.close();
  });
}

main().catch((error) => {
  process.stderr.write(`engage failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
