import { createHmac } from 'node:crypto';
import { standardSigningKey } from './secret';

export interface SignedHeadersInput {
  deliveryId: string;
  kind: string;
  body: string;
  at: Date;
  secret: string | null;
}

// The headers of one attempt. X-Webhook-*: §6, with X-Webhook-Signature = `sha256=` + hex
// HMAC-SHA256(secret as UTF-8, `<X-Webhook-Timestamp>.<body>`). webhook-*: Standard Webhooks,
// webhook-signature = `v1,` + base64 HMAC-SHA256(decoded whsec_ key, `<id>.<unix seconds>.<body>`).
export function deliveryHeaders(input: SignedHeadersInput): Record<string, string> {
  const iso = input.at.toISOString();
  const unix = Math.floor(input.at.getTime() / 1000).toString();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Engage-Webhooks/1',
    'x-webhook-event': input.kind,
    'x-webhook-timestamp': iso,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': unix,
  };
  if (input.secret) {
    headers['x-webhook-signature'] = `sha256=${createHmac('sha256', Buffer.from(input.secret, 'utf8')).update(`${iso}.${input.body}`).digest('hex')}`;
    headers['webhook-signature'] =
      `v1,${createHmac('sha256', standardSigningKey(input.secret)).update(`${input.deliveryId}.${unix}.${input.body}`).digest('base64')}`;
  }
  return headers;
}
