import { createHmac } from 'node:crypto';
import { urlValidationAnswer, verifyZoomSignature, zoomSignature } from './zoom-signature';

describe("Zoom's webhook signature", () => {
  const secret = 'zoom-secret-token-of-org-a';
  const body = Buffer.from('{"event":"recording.completed","payload":{"object":{"id":1}}}');
  const now = Date.UTC(2026, 10, 24, 12, 0, 0);
  const ts = String(now / 1000);

  it('matches the documented construction: v0= hex HMAC-SHA256 of v0:{timestamp}:{body}', () => {
    const expected = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body.toString()}`).digest('hex')}`;
    expect(zoomSignature(secret, ts, body)).toBe(expected);
    expect(verifyZoomSignature({ secret, signature: expected, timestamp: ts, rawBody: body, nowMs: now })).toEqual({ ok: true });
  });

  it('refuses an altered byte, another secret, a stale timestamp and missing headers', () => {
    const signature = zoomSignature(secret, ts, body);
    const altered = Buffer.from(body);
    altered[10] ^= 1;
    expect(verifyZoomSignature({ secret, signature, timestamp: ts, rawBody: altered, nowMs: now })).toEqual({ ok: false, reason: 'bad_signature' });
    const other = zoomSignature('another-organizations-token', ts, body);
    expect(verifyZoomSignature({ secret, signature: other, timestamp: ts, rawBody: body, nowMs: now })).toEqual({ ok: false, reason: 'bad_signature' });
    const old = String(now / 1000 - 301);
    const oldSignature = zoomSignature(secret, old, body);
    const stale = verifyZoomSignature({ secret, signature: oldSignature, timestamp: old, rawBody: body, nowMs: now });
    expect(stale).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(verifyZoomSignature({ secret, signature: undefined, timestamp: ts, rawBody: body, nowMs: now })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyZoomSignature({ secret, signature, timestamp: 'soon', rawBody: body, nowMs: now })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verifyZoomSignature({ secret, signature: 'v0=short', timestamp: ts, rawBody: body, nowMs: now })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('answers the URL validation with the plain token and its hex HMAC', () => {
    expect(urlValidationAnswer(secret, 'qgg8vlvZRS6UYooatFL8Aw')).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', secret).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
  });
});
