import { join, resolve } from 'node:path';
import type { Config } from '../config/settings';
import { LocalObjectStorage } from './local-object-storage';
import type { ObjectStorage } from './object-storage';

// The storage the settings choose. For now the local stand-in under DATA_DIR/cdn; the S3-compatible
// adapter and its settings arrive with the calls issue (docs/operations.md).
export function objectStorageOf(config: Config): ObjectStorage {
  const dir = resolve(join(config.DATA_DIR, 'cdn'));
  return new LocalObjectStorage(dir, `file://${dir}`);
}
