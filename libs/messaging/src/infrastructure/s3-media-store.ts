import { createHash } from 'node:crypto';
import type { MediaStore } from '../application/media-store.port';
import { mediaFileName } from './local-media-store';
import { sha256Hex, signV4 } from './sigv4';

export interface S3Target {
  // Endpoint with the bucket as first path segment (path style), e.g. https://s3.eu-west-1.amazonaws.com/media-bucket.
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  timeoutMs: number;
}

// The same port on an S3-compatible bucket: objects media/<organizationId>/<sha256>.<ext>, signed
// with SigV4; the returned address is the object's URL (the bucket decides who may read it).
export class S3MediaStore implements MediaStore {
  constructor(private readonly target: S3Target) {}

  async put(organizationId: string, bytes: Buffer, contentType: string): Promise<string> {
    const url = new URL(`${this.target.url.replace(/\/+$/, '')}/media/${organizationId}/${mediaFileName(bytes, contentType)}`);
    const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const payloadHash = sha256Hex(bytes);
    const headers: Record<string, string> = { host: url.host, 'content-type': contentType, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
    const authorization = signV4({ method: 'PUT', url, headers, payloadHash, accessKeyId: this.target.accessKeyId, secretAccessKey: this.target.secretAccessKey, region: this.target.region, amzDate });
    const { host: _host, ...sent } = headers;
    const response = await fetch(url, {
      method: 'PUT',
      headers: { ...sent, authorization, 'content-md5': createHash('md5').update(bytes).digest('base64') },
      body: bytes,
      signal: AbortSignal.timeout(this.target.timeoutMs),
    });
    if (!response.ok) throw new Error(`media storage answered ${response.status}: ${(await response.text().catch(() => '')).slice(0, 200)}`);
    return url.toString();
  }
}
