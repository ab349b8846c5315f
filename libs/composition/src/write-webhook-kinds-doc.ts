import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTEXT_EVENTS } from './index';
import { withWebhookKinds } from './webhook-kinds-doc';

const target = join(process.cwd(), 'docs', 'webhooks.md');
writeFileSync(target, withWebhookKinds(readFileSync(target, 'utf8'), CONTEXT_EVENTS));
process.stdout.write(`wrote ${target}\n`);
