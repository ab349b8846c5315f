import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from './settings';

// DATA_DIR is made world-traversable on purpose: the embedded PostgreSQL may run as another
// user (nobody, when started by root), even under a umask of 077. Secrets inside stay 0600.
export function ensureDataDir(dataDir: string): string {
  const dir = resolve(dataDir);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
  }
  return dir;
}

export interface Secrets {
  jwtSecret: string;
  encryptionKey: Buffer;
}

// Outside production, missing secrets are generated once into DATA_DIR so restarts keep sessions
// and encrypted data readable; production requires them (checked by loadConfig).
export function resolveSecrets(config: Config): Secrets {
  let stored: { jwtSecret?: string; encryptionKey?: string } = {};
  const file = join(resolve(config.DATA_DIR), 'secrets.json');
  if (config.JWT_SECRET === undefined || config.ENCRYPTION_KEY === undefined) {
    if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8'));
    if (!stored.jwtSecret || !stored.encryptionKey) {
      stored = { jwtSecret: randomBytes(48).toString('base64url'), encryptionKey: randomBytes(32).toString('base64') };
      ensureDataDir(config.DATA_DIR);
      writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
      chmodSync(file, 0o600);
    }
  }
  return {
    jwtSecret: config.JWT_SECRET ?? stored.jwtSecret!,
    encryptionKey: Buffer.from(config.ENCRYPTION_KEY ?? stored.encryptionKey!, 'base64'),
  };
}
