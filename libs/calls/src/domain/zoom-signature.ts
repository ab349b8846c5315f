import { createHmac, timingSafeEqual } from 'node:crypto';

// Zoom's webhook rules (its "Using webhooks" guide): each request carries x-zm-request-timestamp
// (seconds) and x-zm-signature = "v0=" + hex HMAC-SHA256 of "v0:{timestamp}:{raw body}" keyed with
// the app's secret token; the endpoint.url_validation event is answered with the plain token and
// its hex HMAC-SHA256 under the same secret.

export const ZOOM_MAX_AGE_SECONDS = 300;

export type ZoomSignatureCheck = { ok: true } | { ok: false; reason: 'missing_signature' | 'stale_timestamp' | 'bad_signature' };

export function zoomSignature(secret: string, timestamp: string, rawBody: Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

export function verifyZoomSignature(input: { secret: string; signature: unknown; timestamp: unknown; rawBody: Buffer; nowMs: number }): ZoomSignatureCheck {
  const { signature, timestamp } = input;
  if (typeof signature !== 'string' || typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'missing_signature' };
  if (Math.abs(input.nowMs / 1000 - Number(timestamp)) > ZOOM_MAX_AGE_SECONDS) return { ok: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(zoomSignature(input.secret, timestamp, input.rawBody));
  const given = Buffer.from(signature);
  // Compared in constant time; lengths differ only for a malformed header, which says nothing secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
  return { ok: true };
}

export function urlValidationAnswer(secret: string, plainToken: string): { plainToken: string; encryptedToken: string } {
  return { plainToken, encryptedToken: createHmac('sha256', secret).update(plainToken).digest('hex') };
}
