import type { Readable } from 'node:stream';

// Where the service keeps files it is handed or re-hosts (call recordings, inbound media): an
// S3-compatible CDN in production, a local directory standing in for it by default. Keys are
// paths of plain segments (`<suite_id>/2026/11/<id>.mp3`); the adapter says where they are served.
export interface StoredObject {
  key: string;
  // The address the object is served at (the CDN's, or the stand-in's).
  url: string;
  bytes: number;
}

export interface PutOptions {
  contentType: string;
  // Stops the upload (a client that went away); what was written is removed.
  signal?: AbortSignal;
}

// A stored object opened for reading.
export interface ObjectBody {
  body: Readable;
  bytes: number;
}

export interface ObjectStorage {
  // 's3': the configured CDN; 'local': the stand-in directory (docs/operations.md).
  readonly kind: 's3' | 'local';
  // Streams the body to `key` without holding it whole in memory; replaces an object of that key.
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObject>;
  // Removes an object; a missing one is not an error.
  remove(key: string): Promise<void>;
  // Opens an object to be read, streamed; undefined when there is none (or the key is not valid).
  // The local stand-in's files are served through it; a CDN serves its own, and is read back only
  // by the service's own work (a call recording transcribed).
  read(key: string): Promise<ObjectBody | undefined>;
}

export const OBJECT_STORAGE = Symbol('OBJECT_STORAGE');

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

// A key of 1 to 8 plain segments: no '..', no empty or hidden segment, no backslash.
export function assertObjectKey(key: string): void {
  const segments = key.split('/');
  if (segments.length > 8 || !segments.every((segment) => SEGMENT.test(segment) && !segment.includes('..'))) {
    throw new Error(`invalid object key "${key}"`);
  }
}
