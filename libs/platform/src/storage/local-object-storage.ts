import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertObjectKey, type ObjectBody, type ObjectStorage, type PutOptions, type StoredObject } from './object-storage';

// The stand-in for the CDN (no CDN configured): files under a directory, written to a temporary name
// and renamed when whole, so a reader never sees half a file and a failed upload leaves nothing.
export class LocalObjectStorage implements ObjectStorage {
  readonly kind = 'local' as const;

  constructor(
    private readonly dir: string,
    // Where the stand-in's files would be served; recorded with each object.
    private readonly baseUrl: string,
  ) {}

  async put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObject> {
    assertObjectKey(key);
    const path = join(this.dir, key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomUUID()}.partial`;
    try {
      const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
      await pipeline(source, createWriteStream(partial, { flags: 'wx' }), { signal: options.signal });
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    const { size } = await stat(path);
    return { key, url: `${this.baseUrl.replace(/\/+$/, '')}/${key}`, bytes: size };
  }

  async remove(key: string): Promise<void> {
    assertObjectKey(key);
    await rm(join(this.dir, key), { force: true });
  }

  async read(key: string): Promise<ObjectBody | undefined> {
    try {
      assertObjectKey(key);
      const file = await open(join(this.dir, key), 'r');
      const info = await file.stat();
      // A key naming a folder (a prefix of other keys) is no object.
      if (!info.isFile()) {
        await file.close();
        return undefined;
      }
      return { body: file.createReadStream(), bytes: info.size };
    } catch {
      return undefined;
    }
  }
}
