import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTEXT_EVENTS } from './index';
import { withWebhookKinds } from './webhook-kinds-doc';

describe('docs/webhooks.md', () => {
  it('should document every webhook kind’s data as the declarations define it (npm run docs:webhooks)', () => {
    const checkedIn = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'webhooks.md'), 'utf8');
    expect(checkedIn).toEqual(withWebhookKinds(checkedIn, CONTEXT_EVENTS));
  });
});
