import type { EventContract } from '@engage/shared-kernel';

// The "Kinds and their data" section of docs/webhooks.md, rendered from the declarations of the
// composed contexts (`npm run docs:webhooks` writes it; a test fails when the file is stale).
export const BEGIN = '<!-- webhook-kinds:begin (generated from the event declarations by `npm run docs:webhooks`) -->';
export const END = '<!-- webhook-kinds:end -->';

const code = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

export function renderWebhookKinds(contracts: readonly EventContract[]): string {
  const lines = [BEGIN, '', '| Kind | Producer | When | `data`: fields of the record | `data.changes` (only when present) |', '|---|---|---|---|---|'];
  for (const contract of contracts) {
    const webhook = contract.webhook;
    if (!webhook) continue;
    const producer = contract.produced ? `${contract.source} (\`${webhook.record}\`)` : `${contract.source}: **not produced yet**`;
    const changes = webhook.changes?.length ? code(webhook.changes) : '-';
    lines.push(`| \`${contract.name}\` | ${producer} | ${contract.description} | ${code(webhook.fields)} | ${changes} |`);
  }
  lines.push('', END);
  return lines.join('\n');
}

// `doc` with its generated section replaced.
export function withWebhookKinds(doc: string, contracts: readonly EventContract[]): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/webhooks.md has no generated webhook-kinds section');
  return doc.slice(0, start) + renderWebhookKinds(contracts) + doc.slice(end + END.length);
}
