import { Algorithm, hash, verify } from '@node-rs/argon2';

// argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane): about 14 ms per hash here.
export const ARGON2_PARAMETERS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_PARAMETERS);

// Verifying against this when the email is unknown keeps both paths equally slow.
let decoy: Promise<string> | undefined;

export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  if (storedHash === undefined) {
    decoy ??= hashPassword('decoy password for unknown accounts');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
