import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// What the tests do outside the browser: the storefront's billing event, and the user's mail client.

export async function subscribe(baseUrl: string, secret: string, organizationId: string): Promise<void> {
  const body = JSON.stringify({ organization_id: organizationId, plan_id: 'starter', storefront_store_id: `store-${organizationId}`, status: 'active' });
  const response = await fetch(`${baseUrl}/functions/v1/storefront-billing-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-billing-signature': createHmac('sha256', secret).update(body).digest('hex') },
    body,
  });
  if (!response.ok) throw new Error(`billing event refused: ${response.status} ${await response.text()}`);
}

// The newest link of the given type mailed to the address, from the dev mailbox (DATA_DIR/mail).
export function mailedLink(dataDir: string, to: string, type: 'signup' | 'recovery'): string {
  const dir = join(dataDir, 'mail');
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .reverse();
  for (const name of names) {
    const mail = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { to: string; text: string };
    if (mail.to.toLowerCase() !== to.toLowerCase()) continue;
    const link = new RegExp(`https?://\\S+/auth/v1/verify\\?token=[^\\s&]+&type=${type}`).exec(mail.text);
    if (link) return link[0];
  }
  throw new Error(`no ${type} link mailed to ${to}`);
}
