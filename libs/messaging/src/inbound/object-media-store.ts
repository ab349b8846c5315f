import { createHash } from 'node:crypto';
import type { ObjectBody, ObjectStorage } from '@engage/platform';
import { isUuid } from '@engage/shared-kernel';
import type { MediaStore } from './media-store.port';

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'application/pdf': 'pdf',
};
const TYPES: Record<string, string> = Object.fromEntries(Object.entries(EXTENSIONS).map(([type, ext]) => [ext, type]));
export const MEDIA_FILE = /^[0-9a-f]{64}\.(jpg|png|gif|webp|mp4|3gp|ogg|mp3|m4a|pdf|bin)$/;

// Content-addressed: the SHA-256 of the bytes, so storing the same media twice (a retried inbound
// event) writes the same object. The names are unguessable, so the address works in an <img> tag
// without credentials.
export const mediaFileName = (bytes: Buffer, contentType: string): string =>
  `${createHash('sha256').update(bytes).digest('hex')}.${EXTENSIONS[contentType.split(';')[0].trim().toLowerCase()] ?? 'bin'}`;

// Re-hosted media in the platform's object storage, as objects media/<organizationId>/<sha256>.<ext>.
// On the CDN the address is the object's own (the bucket's policy decides who reads it); in the
// local stand-in, which nothing else serves, it is the api's media route.
export class ObjectMediaStore implements MediaStore {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly apiUrl: string,
  ) {}

  async put(organizationId: string, bytes: Buffer, contentType: string): Promise<string> {
    const name = mediaFileName(bytes, contentType);
    const stored = await this.storage.put(`media/${organizationId}/${name}`, bytes, { contentType: TYPES[name.split('.')[1]] ?? 'application/octet-stream' });
    if (this.storage.kind !== 'local') return stored.url;
    return `${this.apiUrl.replace(/\/+$/, '')}/functions/v1/messaging/media/${organizationId}/${name}`;
  }

  // A stored file of the local stand-in, for the media route; undefined for names that are not ours.
  async read(organizationId: string, name: string): Promise<(ObjectBody & { contentType: string }) | undefined> {
    if (!isUuid(organizationId) || !MEDIA_FILE.test(name) || this.storage.kind !== 'local') return undefined;
    const file = await this.storage.read(`media/${organizationId}/${name}`);
    return file && { ...file, contentType: TYPES[name.split('.')[1]] ?? 'application/octet-stream' };
  }
}
