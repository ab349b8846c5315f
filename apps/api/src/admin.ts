import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CONTEXT_MIGRATIONS, CONTEXT_SETTINGS } from '@engage/composition';
import { loadConfigOrExit, startPlatform } from '@engage/platform';
import { AdminAppModule } from './admin-app.module';
import { ADMIN_COMMANDS, parseFlags } from './admin-commands';

// npm run admin -- <command> [--flag value ...] [--json]
async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const run = command ? ADMIN_COMMANDS[command] : undefined;
  if (!run) {
    process.stderr.write(`usage: npm run admin -- <${Object.keys(ADMIN_COMMANDS).join('|')}> [--flag value ...] --json\n`);
    return 2;
  }
  const flags = parseFlags(rest);
  const config = loadConfigOrExit({ LOG_LEVEL: 'warn', ...process.env }, CONTEXT_SETTINGS);
  const runtime = await startPlatform(config, { role: 'api', migrations: CONTEXT_MIGRATIONS });
  const app = await NestFactory.createApplicationContext(AdminAppModule.forRoot(runtime), { logger: false });
  try {
    const result = await run(app, flags, config);
    process.stdout.write(flags.json === 'true' ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`${JSON.stringify({ error: message, code: (error as { code?: string }).code ?? 'failed' })}\n`);
    process.exit(1);
  },
);
