import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MediaStore } from '../application/media-store.port';

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'video/mp4': 'mp4', 'video/3gpp': '3gp',
  'audio/ogg': 'ogg', 'audio/mpeg': 'mp3', 'audio/mp4': 'm4a', 'application/pdf': 'pdf',
};
const TYPES = Object.fromEntries(Object.entries(EXTENSIONS).map(([type, ext]) => [ext, type]));
export const mediaFileName = (bytes: Buffer, contentType: string): string =>
  `${createHash('sha256').update(bytes).digest('hex')}.${EXTENSIONS[contentType.split(';')[0].trim().toLowerCase()] ?? 'bin'}`;

export const MEDIA_FILE = /^[0-9a-f]{64}\.(jpg|png|gif|webp|mp4|3gp|ogg|mp3|m4a|pdf|bin)$/;

// Files named by the SHA-256 of their content under <dir>/<organizationId>/: storing the same media
// twice (a retried inbound event) writes the same file. The names are unguessable, so the address
// works in an <img> tag without credentials.
export class LocalMediaStore implements MediaStore {
  constructor(
    private readonly dir: string,
    private readonly baseUrl: string,
  ) {}

  async put(organizationId: string, bytes: Buffer, contentType: string): Promise<string> {
    const name = mediaFileName(bytes, contentType);
    const folder = join(this.dir, organizationId);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, name), bytes);
    return `${this.baseUrl.replace(/\/+$/, '')}/functions/v1/messaging/media/${organizationId}/${name}`;
  }

  async read(organizationId: string, name: string): Promise<{ bytes: Buffer; contentType: string } | undefined> {
    if (!MEDIA_FILE.test(name)) return undefined;
    try {
      const bytes = await readFile(join(this.dir, organizationId, name));
      return { bytes, contentType: TYPES[name.split('.')[1]] ?? 'application/octet-stream' };
    } catch {
      return undefined;
    }
  }
}
