import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderEnvExample } from '@engage/platform';
import { CONTEXT_SETTINGS } from './index';

const target = join(process.cwd(), '.env.example');
writeFileSync(target, renderEnvExample(CONTEXT_SETTINGS));
process.stdout.write(`wrote ${target}\n`);
