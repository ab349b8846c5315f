import { createHmac, timingSafeEqual } from 'node:crypto';

// The billing bridge's signature: hex HMAC-SHA256 of the exact raw body, optionally prefixed with
// `sha256=` (OPERATIONS.md). Several secrets may be valid at once during a rotation.
const SIGNATURE = /^(?:sha256=)?([0-9a-fA-F]{64})$/;

export function signBody(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

// Every secret is tried (no early exit), each comparison in constant time, so the answer's timing
// tells nothing about which secret or how much of the signature matched. A malformed header (wrong
// length, not hex) is refused without comparing: its length is not a secret.
export function signatureMatches(body: Buffer, header: string | undefined, secrets: readonly string[]): boolean {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1], 'hex');
  let matches = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    if (timingSafeEqual(expected, given)) matches = true;
  }
  return matches;
}
