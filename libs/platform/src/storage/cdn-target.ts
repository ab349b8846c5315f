import { ConfigError } from '../config/setting';
import type { Config } from '../config/settings';

// An S3-compatible bucket reached with path-style addresses (https://host/bucket/key), which
// every S3-compatible server accepts, unlike bucket-named hosts.
export interface S3Target {
  // Scheme, host and port only: https://s3.eu-west-1.amazonaws.com
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  // Longest one request (a small put, one part of a multipart upload, a delete) may take.
  timeoutMs: number;
  // Base address objects are served at: CDN_PUBLIC_URL, else the bucket's own address.
  publicUrl: string;
}

// S3's rules for bucket names (lower case, digits, dots and hyphens; 3 to 63 characters).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

// The S3 target CDN_URL names, or undefined for the local stand-in. Checked when the config is
// loaded, so a bad combination stops the start with one line naming the setting.
export function cdnTargetOf(config: Config): S3Target | undefined {
  if (!config.CDN_URL) return undefined;
  const url = new URL(config.CDN_URL);
  const segments = url.pathname.split('/').filter(Boolean);
  if (segments.length !== 1 || !BUCKET.test(segments[0]) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError('CDN_URL', 'must be the endpoint with the bucket as its only path segment, e.g. https://s3.eu-west-1.amazonaws.com/engage-cdn');
  }
  if (!config.CDN_ACCESS_KEY_ID) throw new ConfigError('CDN_ACCESS_KEY_ID', 'is required when CDN_URL is set');
  if (!config.CDN_SECRET_ACCESS_KEY) throw new ConfigError('CDN_SECRET_ACCESS_KEY', 'is required when CDN_URL is set');
  return {
    endpoint: url.origin,
    bucket: segments[0],
    accessKeyId: config.CDN_ACCESS_KEY_ID,
    secretAccessKey: config.CDN_SECRET_ACCESS_KEY,
    region: config.CDN_REGION,
    timeoutMs: config.CDN_TIMEOUT_MS,
    publicUrl: config.CDN_PUBLIC_URL ?? `${url.origin}/${segments[0]}`,
  };
}
