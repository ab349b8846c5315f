import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvExample } from './env-example';

const target = join(process.cwd(), '.env.example');
writeFileSync(target, renderEnvExample());
process.stdout.write(`wrote ${target}\n`);
