import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config/settings';
import { cdnTargetOf } from './cdn-target';
import { LocalObjectStorage } from './local-object-storage';
import type { ObjectStorage } from './object-storage';
import { S3ObjectStorage } from './s3-object-storage';

// The storage the settings choose: the S3-compatible CDN when CDN_URL is set, else the local
// stand-in directory CDN_DIR (default DATA_DIR/cdn), whose objects are addressed at CDN_PUBLIC_URL
// when something serves that directory, else by their file:// address.
export function objectStorageOf(config: Config): ObjectStorage {
  const target = cdnTargetOf(config);
  if (target) return new S3ObjectStorage(target);
  const dir = resolve(config.CDN_DIR ?? join(config.DATA_DIR, 'cdn'));
  return new LocalObjectStorage(dir, config.CDN_PUBLIC_URL ?? pathToFileURL(dir).href);
}
