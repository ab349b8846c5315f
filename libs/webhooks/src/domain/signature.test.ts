import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateSecret, maskSecret, secretProblem, standardSigningKey } from './secret';
import { deliveryHeaders } from './signature';

const body = JSON.stringify({ event: 'thing.created', timestamp: '2026-11-23T10:00:00.000Z', data: { id: 'c1', first_name: 'Mona' } });

// What a receiver writes from docs/webhooks.md: HMAC over `<X-Webhook-Timestamp>.<raw body>`.
function plainCheck(secret: string, headers: Record<string, string>, raw: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${headers['x-webhook-timestamp']}.${raw}`).digest('hex')}`);
  const given = Buffer.from(headers['x-webhook-signature'] ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('delivery signatures', () => {
  it('should verify with the standardwebhooks package and with a plain HMAC check', () => {
    const secret = generateSecret();
    const headers = deliveryHeaders({ deliveryId: 'msg_1', kind: 'thing.created', body, at: new Date(), secret });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(plainCheck(secret, headers, body)).toBe(true);
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'x-webhook-event': 'thing.created', 'webhook-id': 'msg_1' });
    expect(headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Number(headers['webhook-timestamp'])).toBe(Math.floor(new Date(headers['x-webhook-timestamp']).getTime() / 1000));
  });

  it('should fail verification for a changed body, another secret or an old timestamp', () => {
    const secret = generateSecret();
    const headers = deliveryHeaders({ deliveryId: 'msg_2', kind: 'thing.updated', body, at: new Date(), secret });
    const tampered = body.replace('Mona', 'Mina');
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow();
    expect(plainCheck(secret, headers, tampered)).toBe(false);
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(plainCheck('another secret value', headers, body)).toBe(false);
    const old = deliveryHeaders({ deliveryId: 'msg_2', kind: 'thing.updated', body, at: new Date(Date.now() - 3_600_000), secret });
    expect(() => new Webhook(secret).verify(body, old)).toThrow(/timestamp/i);
  });

  it('should verify a secret without the whsec_ prefix as raw bytes', () => {
    const secret = 'my-own-secret-value-123';
    const headers = deliveryHeaders({ deliveryId: 'msg_3', kind: 'thing.created', body, at: new Date(), secret });
    expect(new Webhook(secret, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
    expect(plainCheck(secret, headers, body)).toBe(true);
  });

  it('should send no signature headers without a secret', () => {
    const headers = deliveryHeaders({ deliveryId: 'msg_4', kind: 'thing.created', body, at: new Date(), secret: null });
    expect(headers['x-webhook-signature']).toBeUndefined();
    expect(headers['webhook-signature']).toBeUndefined();
    expect(headers['webhook-id']).toBe('msg_4');
  });
});

describe('secrets', () => {
  it('should generate whsec_ secrets of 24 random bytes and mask them', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(standardSigningKey(secret)).toHaveLength(24);
    expect(generateSecret()).not.toBe(secret);
    expect(maskSecret(secret)).toBe(`whsec_****${secret.slice(-4)}`);
    expect(maskSecret('plain-secret-abcd')).toBe('****abcd');
  });

  it.each([
    ['short', /16 to 256/],
    ['has a space in it ok', /16 to 256/],
    ['x'.repeat(257), /16 to 256/],
    ['whsec_not*base64*at*all', /base64 of at least 16 bytes/],
    ['whsec_c2hvcnQ=', /16 to 256|base64/],
  ])('should refuse the secret %s', (secret, message) => {
    expect(secretProblem(secret)).toMatch(message);
  });

  it('should accept a valid secret', () => {
    expect(secretProblem(generateSecret())).toBeUndefined();
    expect(secretProblem('a-long-enough-secret')).toBeUndefined();
  });
});
