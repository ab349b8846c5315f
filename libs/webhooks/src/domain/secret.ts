import { randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

// A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes (the form Svix uses).
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

// What anyone may see of a secret after creation: its kind and last four characters.
export function maskSecret(secret: string): string {
  const tail = secret.slice(-4);
  return secret.startsWith(SECRET_PREFIX) ? `${SECRET_PREFIX}****${tail}` : `****${tail}`;
}

// The HMAC key of the Standard Webhooks signature: the base64-decoded part after `whsec_`; a secret
// without the prefix is used as its UTF-8 bytes (verifiers then take it in "raw" form).
export function standardSigningKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

// A secret callers may supply: 16 to 256 visible ASCII characters; `whsec_` ones must carry base64
// of at least 16 bytes so Standard Webhooks verifiers accept them.
export function secretProblem(secret: string): string | undefined {
  if (secret.length < 16 || secret.length > 256 || !/^[\x21-\x7e]+$/.test(secret)) return 'secret must be 16 to 256 visible ASCII characters without spaces';
  if (secret.startsWith(SECRET_PREFIX)) {
    const body = secret.slice(SECRET_PREFIX.length);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || Buffer.from(body, 'base64').length < 16)
      return 'a whsec_ secret must be followed by base64 of at least 16 bytes';
  }
  return undefined;
}
