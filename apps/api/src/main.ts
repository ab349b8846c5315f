import 'reflect-metadata';
import { CONTEXT_MIGRATIONS, CONTEXT_SETTINGS } from '@engage/composition';
import { loadConfigOrExit, runUntilSignal, startPlatform } from '@engage/platform';
import { TokenService } from '@engage/identity';
import { createApiApp } from './create-api-app';
import { type DemoSeed, seedDemo } from './demo-seed';

// `--with-worker` runs api and worker in one process (npm start); without it, the api alone.
async function main(): Promise<void> {
  const started = Date.now();
  const config = loadConfigOrExit(process.env, CONTEXT_SETTINGS);
  const role = process.argv.includes('--with-worker') ? 'all' : 'api';
  const runtime = await startPlatform(config, { role, migrations: CONTEXT_MIGRATIONS });
  const app = await createApiApp(runtime);
  const demo = config.NODE_ENV === 'production' ? undefined : await seedDemo(app, config);
  const anonKey = await app.get(TokenService).issueAnonKey();
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
      `  anon key: ${anonKey}`,
      ...(demo ? [`  demo:     ${demoLine(demo)}`] : []),
      '',
    ].join('\n'),
  );
  runUntilSignal(async () => {
    await app.close();
    await runtime.close();
  });
}

// The demo organization is made once per database: a replica that did not make it says where it is.
function demoLine(demo: DemoSeed): string {
  switch (demo.state) {
    case 'created':
      return `created; sign-in details in ${demo.file}`;
    case 'here':
      return `sign-in details in ${demo.file}`;
    case 'elsewhere':
      return demo.file
        ? `the demo organization exists in this database; its credentials were written to ${demo.file} by the process that created it`
        : 'the demo organization exists in this database; where its credentials were written was not recorded';
    case 'skipped':
      return 'not checked: another process held the demo seeding lock for 30 s';
  }
}

main().catch((error) => {
  process.stderr.write(`engage failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
